// The little SVG the report charts need, written as text: axis scales (linear and log) with
// their ticks, escaping, and a plot frame with axes, grid and labels. No scripts and no external
// resources, so a chart draws the same in a saved HTML file, a browser and a CI artifact viewer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ktune::svg {

// Maps a data interval onto a pixel interval, linearly or by log10.
class Scale {
 public:
  static Scale linear(double lo, double hi, double px_lo, double px_hi);
  static Scale log(double lo, double hi, double px_lo, double px_hi);  // lo, hi > 0

  double operator()(double v) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool contains(double v) const { return v >= lo_ && v <= hi_; }
  // Tick values inside [lo, hi]: log scales give decades, with 2 and 5 between them when fewer
  // than three decades show; linear scales give 1/2/5 x 10^k steps, about six of them.
  std::vector<double> ticks() const;

 private:
  Scale(bool log, double lo, double hi, double px_lo, double px_hi);
  bool log_;
  double lo_, hi_, px_lo_, px_hi_;
};

// Text made safe inside an element or a quoted attribute.
std::string escape(std::string_view text);

// A short number for a tick or a label: 0.5, 20, 1500, 10k, 2.5M.
std::string short_number(double v);

// A coordinate with two decimals (keeps the files small and diffable).
std::string px(double v);

struct Frame {
  double left, top, width, height;  // the plot area inside the chart, pixels
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

// Grid lines, the two axis lines, tick labels and axis titles:
// <g class="axis x-axis">..., <g class="axis y-axis">..., <g class="grid">...
std::string axes(const Frame& frame, const Scale& x, const Scale& y, std::string_view x_title,
                 std::string_view y_title);

// The colour of series or problem i: a fixed palette first, then generated hues, never the same
// colour twice.
std::string color(size_t i);

}  // namespace ktune::svg
