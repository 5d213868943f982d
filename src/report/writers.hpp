// The four forms of a report (report/report.hpp), and writing them side by side:
//   <stem>.json  everything, for tools: meta, device, ceilings, per problem its roofs and every
//                timed record's roofline figures
//   <stem>.csv   one row per timed record, the roofline figures as columns
//   <stem>.md    a summary fit for a CI job summary or a pull request
//   <stem>.html  self-contained (inline CSS and SVG, no scripts, no network): the roofline chart,
//                a rate-by-problem-size chart per rate unit (TFLOPS, GB/s) and the tables
//                (report/charts.hpp)
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "report/report.hpp"

namespace ktune {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json report_to_json(const Report& report);
std::string report_to_csv(const Report& report);
std::string report_to_markdown(const Report& report);
std::string report_to_html(const Report& report);

struct ReportFiles {
  std::filesystem::path json, csv, markdown, html;
};

// Writes <out_dir>/<stem>.{json,csv,md,html} atomically, creating out_dir.
ReportFiles write_report(const Report& report, const std::filesystem::path& out_dir, const std::string& stem);

}  // namespace ktune
