// The source tree is a house whose floors only rest on the ones below: a file includes files of
// its own folder and of folders lower in this list, never higher (docs/architecture.md). A stair
// going up is a test failure naming the file, the line and both folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace ktune {
namespace {

namespace fs = std::filesystem;

// Lowest first.
const std::vector<std::string> kRooms = {"util",  "core",  "quant",    "measure", "cuda",  "space",  "compile", "scale",
                                         "store", "gpu",   "families", "bench",   "tune",  "report", "runtime", "cli"};

int floor_of(const std::string& room) {
  for (size_t i = 0; i < kRooms.size(); ++i)
    if (kRooms[i] == room) return static_cast<int>(i);
  return -1;
}

TEST(Layering, EveryRoomIsInTheList) {
  for (const auto& e : fs::directory_iterator(fs::path(KTUNE_SOURCE_DIR) / "src"))
    if (e.is_directory()) EXPECT_GE(floor_of(e.path().filename().string()), 0) << e.path() << " is in no floor";
}

TEST(Layering, IncludesOnlyGoDown) {
  const std::regex include(R"re(^\s*#\s*include\s+"([a-z_]+)/)re");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(KTUNE_SOURCE_DIR) / "src")) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    // The room is the folder under src/ (a file in cuda/detail/ lives in cuda/).
    const fs::path relative = e.path().lexically_relative(fs::path(KTUNE_SOURCE_DIR) / "src");
    if (std::distance(relative.begin(), relative.end()) < 2) continue;  // main.cpp: the roof
    const std::string room = relative.begin()->string();
    ++files;
    std::ifstream in(e.path());
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string to = m[1];
      EXPECT_LE(floor_of(to), floor_of(room))
          << e.path().lexically_relative(KTUNE_SOURCE_DIR).string() << ":" << line_no << " includes " << to
          << "/ from " << room << "/, a floor above";
    }
  }
  EXPECT_GT(files, 100);
}

}  // namespace
}  // namespace ktune
