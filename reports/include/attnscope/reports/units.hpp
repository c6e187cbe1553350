// SPDX-License-Identifier: Apache-2.0
// Quantities with units, as people write them in gates and flags ("5%", "0.6ms", "1.2GB", "48K") and as the
// writers print them ("1.21 GB", "612.4 us"). Decimal prefixes (KB = 1000 B) and binary ones (KiB = 1024 B)
// mean what they say.
#pragma once
#include <string>
#include <string_view>

#include "attnscope/vocab/metric.hpp"

namespace attnscope::reports {

enum class Dimension { none, fraction, seconds, bytes, cycles, flops };

struct Quantity {
  double value = 0;  // in base units: seconds, bytes, cycles, FLOP; fractions for "%"
  Dimension dimension = Dimension::none;
};

// Parses "<number>[unit]". Units: % ; s ms us ns ; B KB MB GB TB KiB MiB GiB TiB (K M G T alone = KiB.. for
// sizes, as in "--smem 48K") ; cycles ; FLOP GFLOP TFLOP. Throws std::invalid_argument naming the problem.
Quantity parse_quantity(std::string_view text);
std::string_view to_string(Dimension d);
// The dimension of a metric's unit string as reports store it ("B", "s", "cycles", "FLOP").
Dimension dimension_of_unit(std::string_view unit);

// Human-readable numbers for tables: "1.21 GB", "612.4 us", "1.00e+09 cycles", "-3.2%".
std::string format_bytes(double bytes);
// Powers of 1024 ("48 KiB"), for shared-memory sizes, which people give as 48K = 49152 B.
std::string format_bytes_binary(double bytes);
std::string format_seconds(double seconds);
std::string format_value(double value, std::string_view unit);
std::string format_percent(double fraction);
// Whole counts with thousands separators ("65,536"); other values with 4 significant digits.
std::string format_count(double value);
// A metric's value in its unit (the metric table's).
std::string format_metric(double value, vocab::Metric metric);

}  // namespace attnscope::reports
