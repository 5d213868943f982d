// docs/declared-families.md's walkthrough, run as written: every file it shows is written into an
// empty folder, every command it runs without a GPU runs there and must succeed, and the commands
// it runs on a GPU must at least get as far as asking for one (exit 3 on a machine without one; on
// the GPU machine, where this binary runs too, they run to the end and must pass). The page cannot
// drift from what ktune does.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "util/fs.hpp"
#include "run_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct Walkthrough {
  std::vector<std::pair<std::string, std::string>> files;  // name, text
  std::vector<std::string> offline, on_gpu;                 // commands, as written
};

// The fenced block after each <!-- file: NAME -->, <!-- run --> and <!-- run on a GPU --> marker.
Walkthrough read_walkthrough(const std::string& page) {
  Walkthrough w;
  std::istringstream in(page);
  std::string line, marker;
  while (std::getline(in, line)) {
    if (line.starts_with("<!-- ")) {
      marker = line;
      continue;
    }
    if (!line.starts_with("```") || marker.empty()) continue;
    std::string block;
    while (std::getline(in, line) && !line.starts_with("```")) block += line + "\n";
    std::smatch m;
    if (std::regex_match(marker, m, std::regex(R"(<!-- file: (\S+) -->)"))) {
      w.files.emplace_back(m[1], block);
    } else {
      std::istringstream commands(block);
      for (std::string c; std::getline(commands, c);)
        if (!c.empty()) (marker == "<!-- run -->" ? w.offline : w.on_gpu).push_back(c);
    }
    marker.clear();
  }
  return w;
}

// A command as the page writes it ("ktune ..."), run with this build's ktune in `dir`, its cache there.
test::Ran run_in(const fs::path& dir, const std::string& command) {
  return test::run_ktune(command.substr(6), "KTUNE_CACHE_DIR='" + (dir / "cache").string() + "'", dir.string());
}

TEST(FamilyWalkthrough, TheDocsStepsRunAsWrittenFromAnEmptyFolder) {
  const Walkthrough w = read_walkthrough(read_file(fs::path(KTUNE_SOURCE_DIR) / "docs" / "declared-families.md"));
  ASSERT_EQ(w.files.size(), 4u);
  ASSERT_FALSE(w.offline.empty());
  ASSERT_FALSE(w.on_gpu.empty());
  const fs::path dir = fs::temp_directory_path() / "ktune-walkthrough" / "axpy";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  for (const auto& [name, text] : w.files) std::ofstream(dir / name) << text;

  for (const std::string& c : w.offline) {
    ASSERT_TRUE(c.starts_with("ktune ")) << c;
    const test::Ran r = run_in(dir, c);
    EXPECT_EQ(r.exit_code, 0) << c << "\n" << r.output;
    if (c.find(" families") != std::string::npos) EXPECT_NE(r.output.find("axpy: y = alpha * x + y in place"), std::string::npos) << r.output;
    if (c.find(" compile ") != std::string::npos) {
      EXPECT_NE(r.output.find(" 0 failed to compile"), std::string::npos) << r.output;
      EXPECT_EQ(r.output.find("total: 0 compiled"), std::string::npos) << r.output;
    }
  }
  // What the page says a wrong parameter type gives, it gives.
  std::string kernel = read_file(dir / "axpy.cu");
  kernel.replace(kernel.find("long long n"), 11, "int n");
  std::ofstream(dir / "axpy.cu") << kernel;
  const test::Ran wrong = run_in(dir, "ktune --family-path . compile axpy --n 1000 --arch sm_90a --no-progress");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("parameter 4 of axpy<__nv_bfloat16, 1, 128> must be long long (n)"), std::string::npos)
      << wrong.output;
}

TEST(FamilyWalkthrough, TheGpuStepsGetAsFarAsAskingForAGpu) {
  const Walkthrough w = read_walkthrough(read_file(fs::path(KTUNE_SOURCE_DIR) / "docs" / "declared-families.md"));
  const fs::path dir = fs::temp_directory_path() / "ktune-walkthrough-gpu" / "axpy";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  for (const auto& [name, text] : w.files) std::ofstream(dir / name) << text;
  for (const std::string& c : w.on_gpu) {
    const test::Ran r = run_in(dir, c);
    // 0 where a GPU answers; 3 ("no GPU available") on a machine without one: anything else is a
    // step of the page that is wrong.
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << c << "\n" << r.output;
    if (r.exit_code == 0) EXPECT_NE(r.output.find("passed"), std::string::npos) << c << "\n" << r.output;
  }
}

}  // namespace
}  // namespace ktune
