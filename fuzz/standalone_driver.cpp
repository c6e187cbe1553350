// SPDX-License-Identifier: Apache-2.0
// Runs a fuzz target without libFuzzer (gcc has none): replays every seed given (files, or folders of
// files), then makes `-runs=N` inputs by mutating the seeds with a fixed random seed, so a run is the same
// every time. Takes libFuzzer's spelling of the options it knows (-runs=, -seed=, -max_len=) and ignores the
// others, so one test command serves both builds. A crash is the sanitizers' report and a non-zero exit.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Edits in the spirit of libFuzzer's mutators: bit flips, special bytes and numbers, erased, inserted,
// repeated and spliced ranges.
void mutate(Bytes& b, const std::vector<Bytes>& seeds, std::mt19937_64& rng, std::size_t max_len) {
  const auto pick = [&rng](std::size_t n) { return n == 0 ? std::size_t{0} : std::size_t(rng() % n); };
  static const char* const kTokens[] = {"{",
                                        "}",
                                        "[",
                                        "]",
                                        ",",
                                        ":",
                                        "\"",
                                        "null",
                                        "true",
                                        "-1",
                                        "0",
                                        "1e400",
                                        "4294967360",
                                        "9223372036854775808",
                                        "-0",
                                        "1e-400",
                                        "\\u0000",
                                        "%",
                                        "ms",
                                        "GB",
                                        "<",
                                        "<=",
                                        "==",
                                        ".",
                                        "/",
                                        "K",
                                        "e",
                                        "\x1b",
                                        "{\"a\":1,\"a\":2}"};
  const int edits = 1 + int(rng() % 6);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 8) {
      case 0:
        if (!b.empty()) b[pick(b.size())] ^= std::uint8_t(1u << (rng() % 8));
        break;
      case 1:
        if (!b.empty()) b[pick(b.size())] = std::uint8_t(rng());
        break;
      case 2: {  // erase a range
        if (b.empty()) break;
        const std::size_t at = pick(b.size()), n = 1 + pick(std::min<std::size_t>(16, b.size() - at));
        b.erase(b.begin() + long(at), b.begin() + long(std::min(b.size(), at + n)));
        break;
      }
      case 3:
      case 4: {  // insert a token
        const std::string t = kTokens[pick(std::size(kTokens))];
        b.insert(b.begin() + long(pick(b.size() + 1)), t.begin(), t.end());
        break;
      }
      case 5: {  // repeat a range
        if (b.empty()) break;
        const std::size_t at = pick(b.size()), n = 1 + pick(std::min<std::size_t>(64, b.size() - at));
        const Bytes part(b.begin() + long(at), b.begin() + long(std::min(b.size(), at + n)));
        b.insert(b.begin() + long(pick(b.size() + 1)), part.begin(), part.end());
        break;
      }
      case 6: {  // splice in a range of another seed
        const Bytes& other = seeds[pick(seeds.size())];
        if (other.empty()) break;
        const std::size_t at = pick(other.size()),
                          n = 1 + pick(std::min<std::size_t>(256, other.size() - at));
        b.insert(b.begin() + long(pick(b.size() + 1)), other.begin() + long(at),
                 other.begin() + long(std::min(other.size(), at + n)));
        break;
      }
      default: {  // replace a digit run with another number
        if (b.empty()) break;
        std::size_t at = pick(b.size());
        while (at < b.size() && (b[at] < '0' || b[at] > '9')) ++at;
        std::size_t end = at;
        while (end < b.size() && b[end] >= '0' && b[end] <= '9') ++end;
        const std::string n = std::to_string(std::int64_t(rng()) >> (rng() % 64));
        b.erase(b.begin() + long(at), b.begin() + long(end));
        b.insert(b.begin() + long(at), n.begin(), n.end());
      }
    }
  }
  if (b.size() > max_len) b.resize(max_len);
}

}  // namespace

int main(int argc, char** argv) {
  long long runs = 0;
  std::uint64_t seed = 1;
  std::size_t max_len = 65536;
  std::vector<Bytes> seeds;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("-runs=", 0) == 0) {
      runs = std::atoll(a.c_str() + 6);
    } else if (a.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(a.c_str() + 6, nullptr, 10);
    } else if (a.rfind("-max_len=", 0) == 0) {
      max_len = std::strtoull(a.c_str() + 9, nullptr, 10);
    } else if (a.rfind("-", 0) == 0) {
      continue;  // a libFuzzer option this driver does not need
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) seeds.push_back(read_file(e.path()));
    } else {
      seeds.push_back(read_file(a));
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  for (const Bytes& s : seeds) LLVMFuzzerTestOneInput(s.data(), s.size());
  std::mt19937_64 rng(seed);
  for (long long i = 0; i < runs; ++i) {
    Bytes b = seeds[std::size_t(rng() % seeds.size())];
    mutate(b, seeds, rng, max_len);
    LLVMFuzzerTestOneInput(b.data(), b.size());
  }
  std::printf("%s: %zu seeds replayed, %lld mutated inputs run, no crash\n", argv[0], seeds.size(), runs);
  return 0;
}
