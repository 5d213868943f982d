// The report's SVG charts; see charts.hpp for what they show.
#include "report/charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include "report/svg.hpp"

namespace ktune {
namespace {

using svg::escape;
using svg::px;
using svg::short_number;

constexpr double kWidth = 920, kHeight = 520;
const svg::Frame kFrame{80, 46, 560, 400};
constexpr double kLegendX = 665;

double decade_below(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_above(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

std::string open_svg(const std::string& id, const std::string& title) {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" role=\"img\" aria-label=\"{}\">\n"
      "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n"
      "<text class=\"chart-title\" x=\"{}\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#111\">{}</text>\n",
      id, kWidth, kHeight, kWidth, kHeight, escape(title), kWidth, kHeight, px(kFrame.left), escape(title));
}

// Marker shapes, centred on (x, y).
std::string circle(const std::string& cls, double x, double y, double r, const std::string& fill,
                   const std::string& stroke, const std::string& tip) {
  return fmt::format("<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"{}\" "
                     "fill-opacity=\"0.6\"><title>{}</title></circle>\n",
                     cls, px(x), px(y), px(r), fill, stroke, escape(tip));
}

std::string square(const std::string& cls, double x, double y, double half, const std::string& fill,
                   const std::string& tip) {
  return fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#000\" "
                     "stroke-width=\"1.5\"><title>{}</title></rect>\n",
                     cls, px(x - half), px(y - half), px(2 * half), px(2 * half), fill, escape(tip));
}

std::string diamond(const std::string& cls, double x, double y, double r, const std::string& fill,
                    const std::string& tip) {
  return fmt::format("<polygon class=\"{}\" points=\"{},{} {},{} {},{} {},{}\" fill=\"{}\" stroke=\"#000\" "
                     "stroke-width=\"1.5\"><title>{}</title></polygon>\n",
                     cls, px(x), px(y - r), px(x + r), px(y), px(x), px(y + r), px(x - r), px(y), fill, escape(tip));
}

std::string legend_text(double y, const std::string& text) {
  return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#222\">{}</text>\n", px(kLegendX + 22),
                     px(y + 4), escape(text));
}

// Text labels placed so that none overlaps another: each goes where it is wanted, or as many of
// its own heights above as it takes for its box (estimated from the characters: sans-serif is
// about 0.6 em a character) to clear every label placed before it.
class LabelPlacer {
 public:
  double place(double x, double y, const std::string& text, double size, bool anchored_end) {
    const double width = static_cast<double>(text.size()) * size * 0.6, height = size + 2;
    for (int tries = 0; tries < 40; ++tries, y -= height) {
      const Box b{anchored_end ? x - width : x, anchored_end ? x : x + width, y - size, y + 2};
      if (std::none_of(boxes_.begin(), boxes_.end(), [&](const Box& o) { return b.overlaps(o); })) {
        boxes_.push_back(b);
        break;
      }
    }
    return y;
  }

 private:
  struct Box {
    double x0, x1, y0, y1;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  };
  std::vector<Box> boxes_;
};

// A point's tooltip: its rate in the family's unit and the % of the roof that unit is judged by.
std::string point_tip(const Report& report, const ReportProblem& p, const ReportRecord& r) {
  return fmt::format("{} · {} · {} · {:.4f} ms · {} · {:.1f}% of roof", problem_label(report, p),
                     provider_name(r.source), record_config(r), r.median_ms, record_rate(p, r),
                     pct_of_roof(p, r.roof));
}

}  // namespace

std::string roofline_svg(const Report& report) {
  const Ceilings& c = report.ceilings;
  const double bw_tflops_per_intensity = c.copy_gbps * 1e9 / 1e12;  // TFLOPS per FLOP/B on the memory roof

  // The domain holds every problem's intensity, every ridge and every point, with room around.
  std::map<std::string, double> peaks;  // dtype -> compute roof, for the dtypes in the file
  double i_min = INFINITY, i_max = 0, t_min = INFINITY;
  for (const ReportProblem& p : report.problems) {
    peaks[p.problem.dtype] = p.roofs.compute_tflops;
    i_min = std::min(i_min, p.intensity > 0 ? std::min(p.intensity, p.ridge) : p.ridge);
    i_max = std::max({i_max, p.intensity, p.ridge});
    for (const ReportRecord& r : p.records)
      if (r.disposition == Disposition::passed && r.roof.achieved_tflops > 0)
        t_min = std::min(t_min, r.roof.achieved_tflops);
  }
  double peak_max = 0, ridge_max = 0;
  for (const auto& [dtype, peak] : peaks) {
    peak_max = std::max(peak_max, peak);
    ridge_max = std::max(ridge_max, peak / bw_tflops_per_intensity);
  }
  if (report.problems.empty()) i_min = i_max = 1;
  const double x_lo = decade_below(std::max(i_min, 1e-6) / 3), x_hi = decade_above(std::max(i_max, x_lo) * 3);
  const double y_lo = decade_below(std::min(t_min, x_lo * bw_tflops_per_intensity));
  const double y_hi = std::max(peak_max, y_lo * 10) * 1.6;
  const svg::Scale x = svg::Scale::log(x_lo, x_hi, kFrame.left, kFrame.right());
  const svg::Scale y = svg::Scale::log(y_lo, y_hi, kFrame.bottom(), kFrame.top);

  std::string out = open_svg("roofline", fmt::format("Roofline ({} roofs)", c.source));
  out += svg::axes(kFrame, x, y, "arithmetic intensity (FLOP per byte, minimum traffic)", "TFLOPS");

  // Roofs: one memory diagonal up to the highest ridge, then each dtype's flat compute roof.
  out += "<g class=\"roofs\">\n";
  const double mem_y0 = x_lo * bw_tflops_per_intensity;
  out += fmt::format("<line class=\"roof roof-memory\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" "
                     "stroke-width=\"2.5\"><title>memory roof {:.0f} GB/s ({})</title></line>\n",
                     px(x(x_lo)), px(y(mem_y0)), px(x(ridge_max)), px(y(peak_max)), c.copy_gbps, c.source);
  const double angle = std::atan2(y(peak_max) - y(mem_y0), x(ridge_max) - x(x_lo)) * 180 / std::numbers::pi;
  out += fmt::format("<text class=\"roof-label\" transform=\"translate({} {}) rotate({})\" font-size=\"12\" "
                     "fill=\"#d62728\">copy {:.0f} GB/s ({})</text>\n",
                     px(x(x_lo) + 12), px(y(mem_y0 * 1.6) - 6), px(angle), c.copy_gbps, c.source);
  LabelPlacer labels;  // the roofs' and ridges' labels of several dtypes never overlap
  for (const auto& [dtype, peak] : peaks) {
    const double ridge = peak / bw_tflops_per_intensity;
    const std::string roof_label = fmt::format("{} {:.0f} TFLOPS ({})", dtype, peak, c.source);
    const std::string ridge_label = fmt::format("{} ridge {:.0f}", dtype, ridge);
    out += fmt::format("<line class=\"roof roof-compute\" data-dtype=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                       "stroke=\"#d62728\" stroke-width=\"2.5\"><title>{} compute roof {:.0f} TFLOPS ({})</title>"
                       "</line>\n",
                       dtype, px(x(ridge)), px(y(peak)), px(x(x_hi)), px(y(peak)), dtype, peak, c.source);
    out += fmt::format("<text class=\"roof-label\" x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#d62728\" "
                       "text-anchor=\"end\">{}</text>\n",
                       px(kFrame.right() - 4), px(labels.place(kFrame.right() - 4, y(peak) - 6, roof_label, 12, true)),
                       escape(roof_label));
    out += fmt::format("<line class=\"ridge\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#d62728\" "
                       "stroke-dasharray=\"3 4\"><title>{3} ridge point {4:.1f} FLOP/B</title></line>\n",
                       px(x(ridge)), px(y(peak)), px(kFrame.bottom()), dtype, ridge);
    out += fmt::format("<text class=\"ridge-label\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#d62728\">{}</text>\n",
                       px(x(ridge) + 4), px(labels.place(x(ridge) + 4, kFrame.bottom() - 6, ridge_label, 11, false)),
                       escape(ridge_label));
  }
  out += "</g>\n";

  // Points: candidates under the references under the winners, so the marked ones stay visible.
  std::string candidates, references, winners;
  for (size_t pi = 0; pi < report.problems.size(); ++pi) {
    const ReportProblem& p = report.problems[pi];
    const std::string& colour = svg::color(pi);
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      // A problem of no arithmetic (a copy, a histogram) has no place on log axes of FLOP/B and
      // TFLOPS: its rate shows in the GB/s chart and the tables.
      if (r.disposition != Disposition::passed || !(r.roof.intensity > 0) || !(r.roof.achieved_tflops > 0)) continue;
      const double cx = x(r.roof.intensity), cy = y(r.roof.achieved_tflops);
      const std::string tip = point_tip(report, p, r);
      if (p.winner == i)
        winners += diamond("point winner", cx, cy, 9, colour, "winner · " + tip);
      else if (r.role == Role::baseline)
        references += square("point baseline", cx, cy, 5.5, "#444444", tip);
      else
        candidates += circle(r.pruned ? "point candidate pruned" : "point candidate", cx, cy, 3.2,
                             r.pruned ? "none" : colour, colour, tip);
    }
  }
  out += "<g class=\"points\">\n" + candidates + references + winners + "</g>\n";

  // Legend: the markers, then the problems by colour.
  double ly = kFrame.top + 8;
  out += "<g class=\"legend\">\n";
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2.5\"/>",
                     px(kLegendX), px(ly), px(kLegendX + 16), px(ly));
  out += legend_text(ly, fmt::format("roofs ({})", c.source));
  out += circle("legend-mark", kLegendX + 8, ly += 20, 3.2, "#777777", "#777777", "candidate");
  out += legend_text(ly, "candidate (passed)");
  out += circle("legend-mark", kLegendX + 8, ly += 20, 3.2, "none", "#777777", "pruned");
  out += legend_text(ly, "candidate, pruned early");
  out += diamond("legend-mark", kLegendX + 8, ly += 22, 8, "#777777", "winner");
  out += legend_text(ly, "ktune winner");
  out += square("legend-mark", kLegendX + 8, ly += 22, 5.5, "#444444", "baseline");
  out += legend_text(ly, "baseline (library call or copy roof)");
  ly += 12;
  for (size_t pi = 0; pi < report.problems.size() && pi < 16; ++pi) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>", px(kLegendX + 2),
                       px((ly += 20) - 6), svg::color(pi));
    out += legend_text(ly, problem_label(report, report.problems[pi]));
  }
  if (report.problems.size() > 16) out += legend_text(ly += 20, fmt::format("… {} problems", report.problems.size()));
  out += "</g>\n</svg>\n";
  return out;
}

namespace {

// What a perf chart plots, by the roof its problems' rate is judged against.
struct PerfAxes {
  std::string title, x_title, y_title;
  double (*size)(const Cost&);  // the x value of a problem
};

PerfAxes perf_axes(Bound bound) {
  if (bound == Bound::memory)
    return {"GB/s by problem size", "problem size (MB moved per run, minimum)", "GB/s (median)",
            [](const Cost& c) { return c.min_bytes / 1e6; }};
  return {"TFLOPS by problem size", "problem size (GFLOP per run)", "TFLOPS (median)",
          [](const Cost& c) { return c.flops / 1e9; }};
}

}  // namespace

std::string perf_id(const std::string& unit) {
  std::string id = "perf-";
  for (unsigned char ch : unit)  // "GB/s": "gbps"
    if (std::isalnum(ch))
      id += static_cast<char>(std::tolower(ch));
    else if (ch == '/')
      id += 'p';
  return id;
}

std::string perf_svg(const Report& report, const std::string& unit) {
  std::vector<const ReportProblem*> problems;
  for (const ReportProblem& p : report.problems)
    if (rate_unit(p.problem) == unit) problems.push_back(&p);
  const Bound bound = problems.empty() ? Bound::compute : rate_bound(problems.front()->problem);
  const PerfAxes axes = perf_axes(bound);

  // Which problem attributes vary decides how series are named: the family when the chart holds
  // several, the dtype (the options) when some family's problems differ in it.
  std::map<std::string, std::set<std::string>> dtypes;  // family -> its dtypes here
  std::map<std::string, std::set<Options>> options;
  for (const ReportProblem* p : problems) {
    dtypes[p->problem.family].insert(p->problem.dtype);
    options[p->problem.family].insert(p->problem.options);
  }
  auto varies = [](const auto& by_family) {
    return std::any_of(by_family.begin(), by_family.end(), [](const auto& kv) { return kv.second.size() > 1; });
  };
  const bool name_family = dtypes.size() > 1, name_dtype = varies(dtypes), name_options = varies(options);
  auto options_text = [](const Options& o) {
    std::string text;
    for (const auto& [name, value] : o) text += " " + value;
    return text;
  };
  struct Point {
    double size, rate;
    std::string tip;
    Bindings dims;
  };
  // A line joins a series' points only where its problems are one shape at several sizes: one
  // dimension varies (softmax over more rows), or all scale together (squares): a line between
  // unrelated shapes would draw a trend that is not there.
  auto one_shape = [](const std::vector<Point>& points) {
    std::set<std::string> varying;
    for (const Point& pt : points) {
      if (pt.dims.size() != points.front().dims.size()) return false;
      for (const auto& [name, value] : points.front().dims) {
        auto it = pt.dims.find(name);
        if (it == pt.dims.end()) return false;
        if (it->second != value) varying.insert(name);
      }
    }
    if (varying.size() <= 1) return true;
    for (const Point& pt : points) {
      double ratio = 0;
      for (const auto& [name, value] : points.front().dims) {
        if (value <= 0) return false;
        const double r = static_cast<double>(pt.dims.at(name)) / static_cast<double>(value);
        if (ratio == 0) ratio = r;
        if (std::fabs(r - ratio) > 1e-9 * ratio) return false;
      }
    }
    return true;
  };
  std::map<std::string, std::vector<Point>> series;  // label -> points
  // The roofs drawn: each dtype's compute roof (TFLOPS), or the one memory roof (GB/s), which
  // every dtype shares.
  std::map<std::string, double> roofs;
  double s_min = INFINITY, s_max = 0, r_max = 0;
  for (const ReportProblem* pp : problems) {
    const ReportProblem& p = *pp;
    if (bound == Bound::memory)
      roofs["memory"] = p.roofs.memory_gbps;
    else
      roofs[p.problem.dtype] = p.roofs.compute_tflops;
    const std::string suffix = (name_family ? " " + p.problem.family : "") +
                               (name_dtype ? " " + p.problem.dtype : "") +
                               (name_options ? options_text(p.problem.options) : "");
    const double size = axes.size(p.cost);
    std::set<std::string> seen;  // the fastest passed record of each provider (records are fastest first)
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      if (r.disposition != Disposition::passed || !seen.insert(r.source).second) continue;
      if (!(size > 0)) continue;  // no work in this unit (a family this ktune does not know, read as compute-bound)
      const std::string label = (r.role == Role::candidate ? "ktune (best)" : provider_name(r.source)) + suffix;
      const double rate = rate_value(p.problem, r.roof.achieved_tflops, r.roof.achieved_gbps);
      series[label].push_back({size, rate, point_tip(report, p, r), p.problem.dims});
      s_min = std::min(s_min, size);
      s_max = std::max(s_max, size);
      r_max = std::max(r_max, rate);
    }
  }
  for (const auto& [name, roof] : roofs) r_max = std::max(r_max, roof);
  if (!(s_max > 0)) s_min = s_max = 1;
  const svg::Scale x = svg::Scale::log(s_min / 3, s_max * 3, kFrame.left, kFrame.right());
  const svg::Scale y = svg::Scale::linear(0, std::max(r_max, 1.0) * 1.1, kFrame.bottom(), kFrame.top);

  std::string out = open_svg(perf_id(unit), axes.title);
  out += svg::axes(kFrame, x, y, axes.x_title, axes.y_title);
  out += "<g class=\"roofs\">\n";
  for (const auto& [name, roof] : roofs) {
    // The memory roof's label sits at the left: large transfers are the points that reach it.
    const bool memory = bound == Bound::memory;
    out += fmt::format("<line class=\"roof {0}\"{1} x1=\"{2}\" y1=\"{3}\" x2=\"{4}\" y2=\"{3}\" stroke=\"#d62728\" "
                       "stroke-dasharray=\"6 4\"/>"
                       "<text class=\"roof-label\" x=\"{5}\" y=\"{6}\" font-size=\"12\" fill=\"#d62728\" "
                       "text-anchor=\"{7}\">{8} roof {9:.0f} {10} ({11})</text>\n",
                       memory ? "roof-memory" : "roof-compute",
                       memory ? "" : fmt::format(" data-dtype=\"{}\"", name), px(kFrame.left), px(y(roof)),
                       px(kFrame.right() - 4), px(memory ? kFrame.left + 6 : kFrame.right() - 4), px(y(roof) - 5),
                       memory ? "start" : "end", name, roof, unit, report.ceilings.source);
  }
  out += "</g>\n";

  std::string legend = "<g class=\"legend\">\n";
  double ly = kFrame.top + 8;
  size_t si = 0;
  for (auto& [label, points] : series) {
    const std::string& colour = svg::color(si++);
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.size < b.size; });
    std::string path;
    for (const Point& pt : points)
      path += fmt::format("{}{},{}", path.empty() ? "" : " ", px(x(pt.size)), px(y(pt.rate)));
    out += fmt::format("<g class=\"series\" data-label=\"{}\">\n", escape(label));
    if (points.size() > 1 && one_shape(points))
      out += fmt::format("<polyline class=\"series-line\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
                         "stroke-width=\"2\"/>\n",
                         path, colour);
    for (const Point& pt : points)
      out += circle("point provider", x(pt.size), y(pt.rate), 4.5, colour, colour, pt.tip);
    out += "</g>\n";
    legend += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>",
                          px(kLegendX), px(ly), px(kLegendX + 16), px(ly), colour);
    legend += circle("legend-mark", kLegendX + 8, ly, 4.5, colour, colour, label);
    legend += legend_text(ly, label);
    ly += 20;
  }
  out += legend + "</g>\n</svg>\n";
  return out;
}

std::string ratio_svg(const Report& report) {
  struct Bar {
    std::string label, tip;
    double ratio;
  };
  std::vector<Bar> bars;
  for (const ReportProblem& p : report.problems) {
    if (!p.winner || !p.baseline) continue;
    const ReportRecord& w = p.records[*p.winner];
    if (!(w.ratio_vs_baseline > 0)) continue;
    bars.push_back({problem_label(report, p),
                    fmt::format("{} · {:.3f}x {} · {} against {}", problem_label(report, p), w.ratio_vs_baseline,
                                baseline_name(p), record_rate(p, w), record_rate(p, p.records[*p.baseline])),
                    w.ratio_vs_baseline});
  }
  if (bars.empty()) return {};
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.ratio < b.ratio; });
  // A row a problem, tall enough for its label; the labels get the left third of the width.
  constexpr double kRow = 22, kTop = 46, kLabelWidth = 330, kRight = 60;
  const double height = kTop + kRow * static_cast<double>(bars.size()) + 60;
  double lo = 1, hi = 1;
  for (const Bar& b : bars) lo = std::min(lo, b.ratio), hi = std::max(hi, b.ratio);
  const svg::Scale x = svg::Scale::linear(std::min(0.9, std::floor(lo * 10) / 10), std::max(1.1, std::ceil(hi * 10) / 10),
                                          kLabelWidth, kWidth - kRight);
  const std::string common = common_baseline_name(report);
  const std::string title = fmt::format("ktune's best against {} (ratio of medians, > 1 faster)",
                                        common.empty() ? "each problem's baseline" : common);
  std::string out = fmt::format(
      "<svg id=\"ratio\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" role=\"img\" aria-label=\"{2}\">\n"
      "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text class=\"chart-title\" x=\"12\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#111\">{2}</text>\n",
      kWidth, px(height), escape(title));
  const double bottom = kTop + kRow * static_cast<double>(bars.size());
  // The x axis: the ratio, its ticks and grid, the line at parity; the y axis: the problems.
  out += "<g class=\"axis x-axis\" font-size=\"11\" fill=\"#333\">\n";
  for (double t : x.ticks())
    out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>"
                       "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}x</text>\n",
                       px(x(t)), px(kTop - 4), px(bottom), px(bottom + 16), short_number(t));
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                     px(kLabelWidth), px(kWidth - kRight), px(bottom));
  out += fmt::format("<line class=\"parity\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#111\" "
                     "stroke-width=\"1.5\"/>\n</g>\n",
                     px(x(1)), px(kTop - 8), px(bottom + 4));
  out += fmt::format("<g class=\"axis y-axis\" font-size=\"12\" fill=\"#222\">\n"
                     "<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n",
                     px(kLabelWidth), px(kTop), px(bottom));
  for (size_t i = 0; i < bars.size(); ++i)
    out += fmt::format("<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(kLabelWidth - 8),
                       px(kTop + kRow * static_cast<double>(i) + kRow / 2 + 4), escape(bars[i].label));
  out += "</g>\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = kTop + kRow * static_cast<double>(i);
    const double a = x(std::min(1.0, b.ratio)), e = x(std::max(1.0, b.ratio));
    out += fmt::format("<rect class=\"bar {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                       "data-ratio=\"{:.4f}\"><title>{}</title></rect>\n",
                       b.ratio >= 1 ? "faster" : "slower", px(a), px(y + 3), px(std::max(1.0, e - a)), px(kRow - 6),
                       b.ratio >= 1 ? "#2ca02c" : "#d62728", b.ratio, escape(b.tip));
    out += fmt::format("<text class=\"bar-value\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#222\">{:.3f}x</text>\n",
                       px(e + 4), px(y + kRow / 2 + 4), b.ratio);
  }
  out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\">"
                     "baseline median / ktune median</text>\n</svg>\n",
                     px((kLabelWidth + kWidth - kRight) / 2), px(bottom + 40));
  return out;
}

}  // namespace ktune
