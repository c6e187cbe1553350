// SPDX-License-Identifier: Apache-2.0
// Launch microbenchmarks: kernel launch overhead and the CTA dispatch rate.
//
// launch_overhead  An empty kernel (1 CTA of 32 threads): 2000 back-to-back launches timed with events (the
//                  launch-throughput gap), launch + cudaStreamSynchronize round trips on the host clock, the
//                  same kernel as 100 nodes of a CUDA graph replayed (per node), and an empty event pair.
// cta_dispatch     Empty CTAs of 32/128/1024 threads in grids of 16..4096 CTAs per SM: microseconds per
//                  launch, CTAs per microsecond, and the slope between the two largest grids (dispatch rate
//                  without the launch overhead), as ns per CTA per SM.
#include <chrono>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

__global__ void empty_kernel(int* never) {
  if (never != nullptr && threadIdx.x == 1024) *never = 1;  // never true: blockDim.x <= 1024
}

void run_launch_overhead(Context& ctx) {
  const std::string bench = "launch_overhead";
  cudaStream_t s;
  MB_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EventTimer timer;
  const int n = 2000;
  for (int i = 0; i < 100; ++i) empty_kernel<<<1, 32, 0, s>>>(nullptr);  // warmup (module load)
  MB_LAUNCHED();
  MB_CHECK(cudaStreamSynchronize(s));
  std::vector<double> back_to_back, round_trip, graph_node, event_pair;
  for (int r = 0; r < ctx.reps(9); ++r) {
    timer.start(s);
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 32, 0, s>>>(nullptr);
    MB_LAUNCHED();
    back_to_back.push_back(timer.stop_ms(s) * 1e3 / n);
  }
  for (int r = 0; r < ctx.reps(9); ++r) {
    const int m = 200;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < m; ++i) {
      empty_kernel<<<1, 32, 0, s>>>(nullptr);
      MB_LAUNCHED();
      MB_CHECK(cudaStreamSynchronize(s));
    }
    round_trip.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / m);
  }
  {
    const int nodes = 100;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    MB_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i) empty_kernel<<<1, 32, 0, s>>>(nullptr);
    MB_LAUNCHED();
    MB_CHECK(cudaStreamEndCapture(s, &g));
    MB_CHECK(cudaGraphInstantiate(&ge, g, 0));
    MB_CHECK(cudaGraphLaunch(ge, s));  // warmup (upload)
    MB_CHECK(cudaStreamSynchronize(s));
    for (int r = 0; r < ctx.reps(9); ++r) {
      timer.start(s);
      for (int k = 0; k < 10; ++k) MB_CHECK(cudaGraphLaunch(ge, s));
      graph_node.push_back(timer.stop_ms(s) * 1e3 / (10.0 * nodes));
    }
    MB_CHECK(cudaGraphExecDestroy(ge));
    MB_CHECK(cudaGraphDestroy(g));
  }
  for (int r = 0; r < ctx.reps(9); ++r) {
    timer.start(s);
    event_pair.push_back(timer.stop_ms(s) * 1e3);
  }
  MB_CHECK(cudaStreamDestroy(s));
  const Params p = {{"kernel", "empty, 1 CTA x 32 threads"}};
  ctx.rec->result(bench, "back_to_back_per_launch", "us", back_to_back,
                  {{"kernel", "empty, 1 CTA x 32 threads"}, {"launches", n}}, {},
                  "events around 2000 async launches on one stream");
  ctx.rec->result(bench, "launch_sync_round_trip", "us", round_trip, p, {},
                  "host steady_clock: launch then cudaStreamSynchronize, 200 times");
  ctx.rec->result(bench, "graph_per_node", "us", graph_node,
                  {{"kernel", "empty, 1 CTA x 32 threads"}, {"nodes", 100}}, {},
                  "events around 10 replays of a 100-node graph");
  ctx.rec->result(bench, "empty_event_pair", "us", event_pair, {}, {}, "the event timer's floor");
}

void run_cta_dispatch(Context& ctx) {
  const std::string bench = "cta_dispatch";
  EventTimer timer;
  for (int threads : {32, 128, 1024}) {
    std::vector<double> med_us;
    const int per_sm_list[] = {16, 256, 4096};
    for (int per_sm : per_sm_list) {
      const int blocks = per_sm * ctx.sm_count;
      std::vector<double> us, rate;
      for (int r = 0; r < ctx.reps(7) + 1; ++r) {
        timer.start();
        empty_kernel<<<blocks, threads>>>(nullptr);
        MB_LAUNCHED();
        const double ms = timer.stop_ms();
        if (r == 0) continue;
        us.push_back(ms * 1e3);
        rate.push_back(blocks / (ms * 1e3));
      }
      const Params p = {{"threads_per_cta", threads}, {"ctas_per_sm", per_sm}, {"ctas", blocks}};
      ctx.rec->result(bench, "kernel_time", "us", us, p);
      ctx.rec->result(bench, "ctas_per_us", "1/us", rate, p);
      med_us.push_back(summarize(us).median);
    }
    // Slope between the two largest grids: ns per extra CTA on one SM.
    const double ns = (med_us[2] - med_us[1]) * 1e3 / (per_sm_list[2] - per_sm_list[1]);
    ctx.rec->result(
        bench, "ns_per_cta_per_sm", "ns", {ns}, {{"threads_per_cta", threads}}, {},
        "(median time at 4096 CTAs/SM - median at 256) / 3840: the dispatch-bound cost of one more "
        "empty CTA on each SM");
  }
}

}  // namespace

void add_launch_benchmarks(std::vector<Benchmark>& out) {
  out.push_back({"launch_overhead", "empty-kernel launch cost: back-to-back, round trip, graph node",
                 run_launch_overhead});
  out.push_back({"cta_dispatch", "empty-CTA dispatch rate for 32/128/1024-thread CTAs", run_cta_dispatch});
}

}  // namespace attnscope::microbench
