// SPDX-License-Identifier: Apache-2.0
// Covers reports/src/gate.cpp and reports/src/units.cpp: gate syntax, units, evaluation and clear errors.
#include "attnscope/reports/gate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/reports/units.hpp"
#include "test_support.hpp"

namespace attnscope::reports {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::small_report;

TEST(Units, ParsesDecimalAndBinaryPrefixesTimesAndPercent) {
  EXPECT_DOUBLE_EQ(parse_quantity("5%").value, 0.05);
  EXPECT_EQ(parse_quantity("5%").dimension, Dimension::fraction);
  EXPECT_DOUBLE_EQ(parse_quantity("0.6ms").value, 0.6e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("250 us").value, 250e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("1.2GB").value, 1.2e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1GiB").value, 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_quantity("48K").value, 49152.0);
  EXPECT_DOUBLE_EQ(parse_quantity("227K").value, 232448.0);
  EXPECT_EQ(parse_quantity("3").dimension, Dimension::none);
  EXPECT_DOUBLE_EQ(parse_quantity("1e3").value, 1000.0);
  EXPECT_THROW(parse_quantity("5 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_quantity("fast"), std::invalid_argument);
  EXPECT_THROW(parse_quantity(""), std::invalid_argument);
}

TEST(Units, FormatsForTables) {
  EXPECT_EQ(format_bytes(1.21e9), "1.21 GB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_seconds(612.4e-6), "612.4 us");
  EXPECT_EQ(format_seconds(1.5e-3), "1.5 ms");
  EXPECT_EQ(format_percent(-0.032), "-3.2%");
}

TEST(GateParse, KernelMetricFieldOperatorValue) {
  const Gate g = parse_gate("tiled.dram_read.error < 5%");
  EXPECT_EQ(g.kernel, "tiled");
  EXPECT_EQ(g.metric, "dram_read");
  EXPECT_EQ(g.field, GateField::error);
  EXPECT_EQ(g.op, Comparison::less);
  EXPECT_DOUBLE_EQ(g.threshold, 0.05);

  const Gate dotted = parse_gate("naive.qk.dram_write.measured <= 1.2GB");
  EXPECT_EQ(dotted.kernel, "naive.qk");
  EXPECT_EQ(dotted.metric, "dram_write");
  EXPECT_EQ(dotted.field, GateField::measured);
  EXPECT_EQ(dotted.op, Comparison::less_equal);
  EXPECT_DOUBLE_EQ(dotted.threshold, 1.2e9);

  const Gate plain = parse_gate("tiled.time<0.6ms");
  EXPECT_EQ(plain.kernel, "tiled");
  EXPECT_EQ(plain.metric, "time");
  EXPECT_EQ(plain.field, GateField::automatic);
  EXPECT_DOUBLE_EQ(plain.threshold, 0.6e-3);

  EXPECT_EQ(parse_gate("tiled.l2_read.modeled > 0").op, Comparison::greater);
  EXPECT_EQ(parse_gate("a.b >= 1").op, Comparison::greater_equal);
  EXPECT_EQ(parse_gate("a.b == 1").op, Comparison::equal);
  EXPECT_EQ(parse_gate("a.b != 1").op, Comparison::not_equal);
}

TEST(GateParse, BadSyntaxSaysWhatIsWrong) {
  auto message = [](const char* text) {
    try {
      parse_gate(text);
    } catch (const GateError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_THAT(message("tiled.time"), HasSubstr("no comparison"));
  EXPECT_THAT(message("tiled < 1ms"), HasSubstr("names no metric"));
  EXPECT_THAT(message("tiled.time <"), HasSubstr("no value"));
  EXPECT_THAT(message("< 1ms"), HasSubstr("nothing left"));
  EXPECT_THAT(message("tiled..time < 1ms"), HasSubstr("is not KERNEL.METRIC"));
  EXPECT_THAT(message("tiled.time < 1 fortnight"), HasSubstr("unknown unit 'fortnight'"));
  EXPECT_THAT(message("tiled.time < 1ms < 2ms"), HasSubstr("more than one comparison"));
  EXPECT_THAT(message("tiled.time =< 1ms"), HasSubstr("'=' is not a comparison"));
}

TEST(GateEvaluate, DefaultFieldIsMeasuredWhenPresent) {
  const Report r = small_report();  // tiled time: measured 100 us, modeled 90 us
  const GateResult pass = evaluate_gate(parse_gate("tiled.time < 0.105ms"), r);
  EXPECT_TRUE(pass.passed);
  EXPECT_EQ(pass.field_used, "measured");
  EXPECT_DOUBLE_EQ(*pass.actual, 1.0e-4);
  const GateResult fail = evaluate_gate(parse_gate("tiled.time < 95us"), r);
  EXPECT_FALSE(fail.passed);
  EXPECT_THAT(fail.message, AllOf(HasSubstr("tiled.time"), HasSubstr("100 us"), HasSubstr("< 95 us")));
  EXPECT_TRUE(evaluate_gate(parse_gate("tiled.time.modeled < 95us"), r).passed);
  // flops has no measured value: the default falls back to modeled.
  EXPECT_EQ(evaluate_gate(parse_gate("tiled.flops > 1"), r).field_used, "modeled");
}

TEST(GateEvaluate, ErrorIsAbsoluteRelativeError) {
  const Report r = small_report();  // dram_read: +5 %, time: -10 %
  EXPECT_NEAR(*evaluate_gate(parse_gate("tiled.dram_read.error < 6%"), r).actual, 0.05, 1e-12);
  EXPECT_TRUE(evaluate_gate(parse_gate("tiled.dram_read.error < 6%"), r).passed);
  EXPECT_FALSE(evaluate_gate(parse_gate("tiled.time.error < 5%"), r).passed);
  EXPECT_TRUE(evaluate_gate(parse_gate("tiled.time.error <= 0.11"), r).passed);
}

TEST(GateEvaluate, KernelPrefixSumsKernels) {
  Report r = small_report();
  r.kernels[0].name = "naive.qk";
  KernelEntry pv = r.kernels[0];
  pv.name = "naive.pv";
  r.kernels.push_back(pv);
  const GateResult g = evaluate_gate(parse_gate("naive.dram_read.modeled == 2.1MB"), r);
  EXPECT_TRUE(g.passed) << g.message;
}

TEST(GateEvaluate, MissingValueFailsRatherThanPasses) {
  const GateResult g = evaluate_gate(parse_gate("tiled.flops.measured > 0"), small_report());
  EXPECT_FALSE(g.passed);
  EXPECT_FALSE(g.actual.has_value());
  EXPECT_THAT(g.message, HasSubstr("no measured value"));
  EXPECT_FALSE(evaluate_gate(parse_gate("tiled.flops.error < 5%"), small_report()).passed);
}

TEST(GateEvaluate, UnknownKernelOrMetricListsWhatExists) {
  const Report r = small_report();
  try {
    evaluate_gate(parse_gate("flash.time < 1ms"), r);
    FAIL();
  } catch (const GateError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("no kernel 'flash'"), HasSubstr("naive.qk, tiled")));
  }
  // Metrics are the metric table's: a key it does not know is named with the table's keys; a metric of the
  // table the kernel does not carry is named with the kernel's.
  try {
    evaluate_gate(parse_gate("tiled.dram_reads < 1GB"), r);
    FAIL();
  } catch (const GateError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("'dram_reads' is not a metric"), HasSubstr("dram_read, dram_write")));
  }
  try {
    evaluate_gate(parse_gate("tiled.l2_read < 1GB"), r);
    FAIL();
  } catch (const GateError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("no metric 'l2_read'"), HasSubstr("dram_read, flops, time")));
  }
}

TEST(GateEvaluate, UnitMustFitTheMetric) {
  const Report r = small_report();
  EXPECT_THROW(evaluate_gate(parse_gate("tiled.time < 1GB"), r), GateError);
  EXPECT_THROW(evaluate_gate(parse_gate("tiled.time < 5%"), r), GateError);
  EXPECT_THROW(evaluate_gate(parse_gate("tiled.dram_read.error < 1ms"), r), GateError);
  EXPECT_NO_THROW(evaluate_gate(parse_gate("tiled.dram_read < 2MB"), r));
}

}  // namespace
}  // namespace attnscope::reports
