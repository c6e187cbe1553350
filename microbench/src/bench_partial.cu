// SPDX-License-Identifier: Apache-2.0
// split_sectors: what L2 does with a 32-byte sector that two stores write in part, at two different times.
//
// naive.qk writes rows of S that do not start on a sector boundary when Nkv % 16 != 0 (2-byte elements):
// the sector at each tile's edge is written partly by one tile's stores and partly by the next tile's. On
// the H200 such runs read and write DRAM more than S's whole sectors need, by about the same bytes each way
// (docs/lab-notebook/2026-12-05-unaligned-rows-and-split-sectors.md). One explanation: a dirty sector that L2
// holds only in part is read from DRAM before it is written back (read-modify-write), and written back again
// once its other part arrives. This benchmark separates the two writers of each shared sector by a controlled
// number of bytes written in between (the lag) and lets the counters say from which lag the extra bytes
// appear.
//
// Rows of `pitch` bytes, each written in two parts, [0, cut) and [cut, pitch), 2 bytes a lane (64 contiguous
// bytes per warp store, as naive.qk's unaligned stores). Work item j writes the left part of row j and the
// right part of row j - lag, so the sector holding a row's cut and the sector a row shares with the next
// row are each written by two items `lag` rows apart. Items go to warps in order (grid-stride), so about
// lag x pitch bytes are written between the two parts. A control with sector-aligned rows and cut has no
// shared sector at all.
//
// The kernel's time is recorded here; its DRAM and L2 counters come from Nsight Compute around this
// benchmark (scripts/gpu_split_sectors.sh: ncu --cache-control all, one line per launch), in launch order:
// for each configuration, one warm-up launch and then the timed repetitions.
#include <cstdint>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

__device__ __forceinline__ std::uint16_t pattern(std::int64_t element, std::uint16_t tag) {
  return static_cast<std::uint16_t>((element * 2654435761u) >> 7) ^ tag;
}

__global__ void split_sector_store(std::uint16_t* buf, std::int64_t rows, int pitch_elems, int cut_elems,
                                   std::int64_t lag, std::uint16_t tag) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32;
  for (std::int64_t j = warp; j < rows + lag; j += warps) {
    if (j < rows) {
      const std::int64_t base = j * pitch_elems;
      for (int c = lane; c < cut_elems; c += 32) buf[base + c] = pattern(base + c, tag);
    }
    if (j >= lag) {
      const std::int64_t base = (j - lag) * pitch_elems;
      for (int c = cut_elems + lane; c < pitch_elems; c += 32) buf[base + c] = pattern(base + c, tag);
    }
  }
}

// Sectors that two items write in part: a row's cut off a sector boundary, and a row start off one (the
// sector it shares with the previous row).
std::int64_t shared_sectors(std::int64_t rows, std::int64_t pitch_bytes, std::int64_t cut_bytes) {
  std::int64_t n = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    if ((r * pitch_bytes + cut_bytes) % 32 != 0) ++n;
    if (r > 0 && (r * pitch_bytes) % 32 != 0) ++n;
  }
  return n;
}

void run_split_sectors(Context& ctx) {
  const std::string bench = "split_sectors";
  const std::int64_t buffer_bytes = std::int64_t{1} << 30;  // 17x the H200's L2
  DeviceBuffer<std::uint16_t> buf(static_cast<std::size_t>(buffer_bytes / 2));
  const int threads = 256, blocks = 4 * ctx.sm_count;
  EventTimer timer;
  struct Layout {
    const char* name;
    int pitch_elems, cut_elems;
  };
  // 2931 keys of fp16 (a fresh shape whose naive.qk read 2.7x its compulsory bytes), cut near the middle;
  // and the control: 2944 elements (5888 bytes) cut at 1472, both multiples of 16 elements.
  const Layout layouts[] = {{"unaligned", 2931, 1465}, {"aligned", 2944, 1472}};
  const std::int64_t lags[] = {0, 16, 128, 1024, 4096, 16384, 65536};
  std::uint16_t tag = 1;
  int launch = 0;
  for (const Layout& l : layouts) {
    const std::int64_t pitch_bytes = 2 * std::int64_t{l.pitch_elems},
                       cut_bytes = 2 * std::int64_t{l.cut_elems};
    const std::int64_t rows = buffer_bytes / pitch_bytes;
    const std::int64_t shared = shared_sectors(rows, pitch_bytes, cut_bytes);
    for (const std::int64_t lag : lags) {
      std::vector<double> us;
      const int first_launch = launch;
      for (int r = 0; r < ctx.reps(5) + 1; ++r, ++launch) {
        ++tag;
        timer.start();
        split_sector_store<<<blocks, threads>>>(buf.get(), rows, l.pitch_elems, l.cut_elems, lag, tag);
        MB_LAUNCHED();
        const double ms = timer.stop_ms();
        if (r > 0) us.push_back(ms * 1e3);
      }
      // Every element of a few rows, including both parts and the rows' shared sectors.
      const std::vector<std::uint16_t> host = buf.copy_out();
      bool ok = true;
      for (const std::int64_t row : {std::int64_t{0}, rows / 2, rows - 1})
        for (std::int64_t c = 0; c < l.pitch_elems; ++c) {
          const std::int64_t e = row * l.pitch_elems + c;
          const auto want =
              static_cast<std::uint16_t>(static_cast<std::uint16_t>((e * 2654435761u) >> 7) ^ tag);
          ok = ok && host[static_cast<std::size_t>(e)] == want;
        }
      ctx.rec->check(bench,
                     std::string(l.name) + " lag " + std::to_string(lag) + ": rows 0, middle, last written",
                     ok, "");
      ctx.rec->result(bench, "kernel_time", "us", us,
                      {{"layout", l.name},
                       {"pitch_bytes", pitch_bytes},
                       {"cut_bytes", cut_bytes},
                       {"rows", rows},
                       {"lag_rows", lag},
                       {"lag_bytes", lag * pitch_bytes},
                       {"bytes_written", rows * pitch_bytes},
                       {"shared_sectors", shared},
                       {"first_launch", first_launch},
                       {"launches", launch - first_launch},
                       {"ctas", blocks},
                       {"threads", threads}});
    }
  }
}

}  // namespace

void add_partial_sector_benchmarks(std::vector<Benchmark>& out) {
  out.push_back({"split_sectors",
                 "sectors written in part by two stores lag rows apart (time here; DRAM bytes under ncu)",
                 run_split_sectors});
}

}  // namespace attnscope::microbench
