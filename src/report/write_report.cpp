// Writing the four report files side by side; see writers.hpp.
#include "report/writers.hpp"

#include "util/fs.hpp"

namespace ktune {

ReportFiles write_report(const Report& report, const std::filesystem::path& out_dir, const std::string& stem) {
  ReportFiles files{out_dir / (stem + ".json"), out_dir / (stem + ".csv"), out_dir / (stem + ".md"),
                    out_dir / (stem + ".html")};
  write_file_atomic(files.json, report_to_json(report).dump(1) + "\n");
  write_file_atomic(files.csv, report_to_csv(report));
  write_file_atomic(files.markdown, report_to_markdown(report));
  write_file_atomic(files.html, report_to_html(report));
  return files;
}

}  // namespace ktune
