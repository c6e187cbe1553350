// SPDX-License-Identifier: Apache-2.0
// A control for parallel-efficiency measurements on one machine: a compute-only loop (a dependent chain of
// integer multiply-adds on registers, no memory traffic) timed on one core, then on N cores at once. A
// perfectly parallel program cannot scale better than this loop does; when it slows down with more busy
// cores, the cores' clock fell (turbo bins) or the cores share hardware (SMT siblings under a hypervisor).
// With a size in MiB, each copy instead chases pointers through its own random cycle of that many MiB: the
// host-memory latency a cache model's tag store sees, shared L3 and memory included.
//
//   cc -O2 -o cpu_clock_probe scripts/cpu_clock_probe.c
//   ./cpu_clock_probe 1; ./cpu_clock_probe 16     # prints the median ns per iteration over the copies
//   ./cpu_clock_probe 16 4                        # pointer chase through 4 MiB per copy
//   ./cpu_clock_probe 2 ilp                       # eight independent chains: issue-bound, not latency-bound
//   PROBE_CPUS=0,9 ./cpu_clock_probe 2 ilp        # pin copy i to the i-th listed CPU (default: copy i on CPU i)
// The dependent chain leaves most of a core's issue slots idle, so two copies on SMT siblings barely slow each
// other; the eight-chain loop fills them, so siblings show up as a pair that runs at about half speed.
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const int copies = argc > 1 ? atoi(argv[1]) : 1;
  const int ilp = argc > 2 && argv[2][0] == 'i';
  const size_t chase_mib = argc > 2 && !ilp ? (size_t)atoi(argv[2]) : 0;
  int cpus[1024];
  const char* list = getenv("PROBE_CPUS");
  for (int c = 0; c < 1024; ++c) cpus[c] = c;
  for (int c = 0; list && *list && c < 1024; ++c) {
    char* end = NULL;
    cpus[c] = (int)strtol(list, &end, 10);
    list = *end == ',' ? end + 1 : end;
  }
  const uint64_t iterations = chase_mib >= 16 ? 20000000ull : chase_mib ? 100000000ull : 1000000000ull;
  int fds[2];
  if (copies < 1 || pipe(fds) != 0) return 2;
  for (int c = 0; c < copies; ++c) {
    const pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpus[c], &set);
      sched_setaffinity(0, sizeof set, &set);
      volatile uint64_t seed = 12345;
      uint64_t x = seed;
      double ns = 0;
      if (ilp) {
        uint64_t y[8];
        for (int k = 0; k < 8; ++k) y[k] = x + (uint64_t)k;
        const double t0 = now();
        for (uint64_t i = 0; i < iterations / 4; ++i)
          for (int k = 0; k < 8; ++k) y[k] = y[k] * 6364136223846793005ull + 1442695040888963407ull;
        ns = (now() - t0) * 1e9 / (double)(iterations / 4);
        for (int k = 0; k < 8; ++k) x ^= y[k];
      } else if (chase_mib == 0) {
        const double t0 = now();
        for (uint64_t i = 0; i < iterations; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
        ns = (now() - t0) * 1e9 / (double)iterations;
      } else {
        const size_t n = chase_mib * 1048576 / sizeof(size_t);
        size_t* next = malloc(n * sizeof(size_t));
        size_t* order = malloc(n * sizeof(size_t));
        if (!next || !order) _exit(1);
        for (size_t i = 0; i < n; ++i) order[i] = i;
        for (size_t i = n - 1; i > 0; --i) {  // a random single cycle (Sattolo's shuffle)
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          const size_t j = (size_t)((x >> 17) % i);
          const size_t t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
        for (size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
        size_t p = 0;
        const double t0 = now();
        for (uint64_t i = 0; i < iterations; ++i) p = next[p];
        ns = (now() - t0) * 1e9 / (double)iterations;
        x = p;
      }
      seed = x;
      if (write(fds[1], &ns, sizeof ns) != sizeof ns) _exit(1);
      _exit(0);
    }
  }
  double ns[1024];
  for (int c = 0; c < copies && c < 1024; ++c)
    if (read(fds[0], &ns[c], sizeof ns[c]) != sizeof ns[c]) return 2;
  while (wait(NULL) > 0) {
  }
  for (int i = 1; i < copies; ++i)  // insertion sort: a handful of values
    for (int j = i; j > 0 && ns[j] < ns[j - 1]; --j) {
      const double t = ns[j];
      ns[j] = ns[j - 1];
      ns[j - 1] = t;
    }
  printf("{\"copies\": %d, \"mode\": \"%s\", \"cpus\": \"%s\", \"median_ns_per_iteration\": %.4f, \"min\": %.4f, "
         "\"max\": %.4f}\n",
         copies, ilp ? "ilp8" : chase_mib ? "chase" : "chain", getenv("PROBE_CPUS") ? getenv("PROBE_CPUS") : "0..",
         ns[copies / 2], ns[0], ns[copies - 1]);
  return 0;
}
