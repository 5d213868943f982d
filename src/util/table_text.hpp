// Text made safe for the cells of the tables ktune writes: CSV fields (RFC 4180) and Markdown
// table cells.
#pragma once

#include <string>
#include <string_view>

namespace ktune {

// The field as is, or quoted with its quotes doubled where it holds a comma, a quote or a line
// break (kernel names hold commas).
std::string csv_field(std::string_view s);

// A Markdown table cell: '|' escaped so it cannot end the cell, line breaks as spaces.
std::string markdown_cell(std::string_view s);

}  // namespace ktune
