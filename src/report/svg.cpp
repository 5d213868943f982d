// SVG scales, ticks and axes; see svg.hpp.
#include "report/svg.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/error.hpp"

namespace ktune::svg {

Scale::Scale(bool log, double lo, double hi, double px_lo, double px_hi)
    : log_(log), lo_(lo), hi_(hi), px_lo_(px_lo), px_hi_(px_hi) {}

Scale Scale::linear(double lo, double hi, double px_lo, double px_hi) {
  if (!(hi > lo)) throw Error(fmt::format("empty linear scale [{}, {}]", lo, hi));
  return Scale(false, lo, hi, px_lo, px_hi);
}

Scale Scale::log(double lo, double hi, double px_lo, double px_hi) {
  if (!(lo > 0) || !(hi > lo)) throw Error(fmt::format("bad log scale [{}, {}]", lo, hi));
  return Scale(true, lo, hi, px_lo, px_hi);
}

double Scale::operator()(double v) const {
  const double t = log_ ? (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_))
                        : (v - lo_) / (hi_ - lo_);
  return px_lo_ + t * (px_hi_ - px_lo_);
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  const double slack = 1e-9;
  if (log_) {
    const int first = static_cast<int>(std::floor(std::log10(lo_)));
    const int last = static_cast<int>(std::ceil(std::log10(hi_)));
    const bool fine = std::log10(hi_) - std::log10(lo_) < 3;
    for (int e = first; e <= last; ++e) {
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10.0, e);
        if (v >= lo_ * (1 - slack) && v <= hi_ * (1 + slack)) out.push_back(v);
      }
    }
    return out;
  }
  const double raw = (hi_ - lo_) / 6;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo_ / step) * step; v <= hi_ + step * slack; v += step)
    out.push_back(std::abs(v) < step * slack ? 0.0 : v);
  return out;
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string short_number(double v) {
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.4g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.4g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.4g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

std::string px(double v) { return fmt::format("{:.2f}", v); }

std::string axes(const Frame& f, const Scale& x, const Scale& y, std::string_view x_title, std::string_view y_title) {
  std::string grid = "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  std::string xs = "<g class=\"axis x-axis\" font-size=\"12\" fill=\"#333\" text-anchor=\"middle\">\n";
  for (double v : x.ticks()) {
    const std::string at = px(x(v));
    grid += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", at, px(f.top), px(f.bottom()));
    xs += fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>"
                      "<text x=\"{0}\" y=\"{3}\">{4}</text>\n",
                      at, px(f.bottom()), px(f.bottom() + 5), px(f.bottom() + 19), short_number(v));
  }
  xs += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                    px(f.left), px(f.right()), px(f.bottom()));
  xs += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" font-size=\"13\">{}</text>\n</g>\n",
                    px(f.left + f.width / 2), px(f.bottom() + 40), escape(x_title));
  std::string ys = "<g class=\"axis y-axis\" font-size=\"12\" fill=\"#333\" text-anchor=\"end\">\n";
  for (double v : y.ticks()) {
    const std::string at = px(y(v));
    grid += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>\n", at, px(f.left), px(f.right()));
    ys += fmt::format("<line class=\"tick\" x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#333\"/>"
                      "<text x=\"{3}\" y=\"{4}\">{5}</text>\n",
                      at, px(f.left - 5), px(f.left), px(f.left - 8), px(y(v) + 4), short_number(v));
  }
  ys += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                    px(f.left), px(f.top), px(f.bottom()));
  ys += fmt::format("<text class=\"axis-title\" transform=\"translate({} {}) rotate(-90)\" text-anchor=\"middle\" "
                    "font-size=\"13\">{}</text>\n</g>\n",
                    px(f.left - 52), px(f.top + f.height / 2), escape(y_title));
  grid += "</g>\n";
  return grid + xs + ys;
}

std::string color(size_t i) {
  static const std::vector<std::string> palette = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                                   "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
  if (i < palette.size()) return palette[i];
  // Past the palette, hues a golden angle apart (no two alike however many problems), at three
  // lightnesses in turn, saturated enough to print.
  const double hue = std::fmod(0.618033988749895 * static_cast<double>(i - palette.size()) + 0.07, 1.0) * 360;
  const double lightness = (i % 3 == 0 ? 38 : i % 3 == 1 ? 50 : 62) / 100.0, saturation = 0.7;
  const double chroma = (1 - std::fabs(2 * lightness - 1)) * saturation;
  const double h = hue / 60, x = chroma * (1 - std::fabs(std::fmod(h, 2) - 1));
  double r = 0, g = 0, b = 0;
  if (h < 1) r = chroma, g = x;
  else if (h < 2) r = x, g = chroma;
  else if (h < 3) g = chroma, b = x;
  else if (h < 4) g = x, b = chroma;
  else if (h < 5) r = x, b = chroma;
  else r = chroma, b = x;
  const double m = lightness - chroma / 2;
  auto byte = [&](double v) { return static_cast<int>(std::lround(255 * (v + m))); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b));
}

}  // namespace ktune::svg
