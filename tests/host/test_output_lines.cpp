// ktune's stdout into a file keeps whole lines when the run is stopped part way, as a time limit
// stops it: what it printed is in the file, ending at a line's end.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "run_ktune.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

// An offline compile of a few hundred candidates from an empty cache takes minutes on two cores;
// the run is stopped (SIGTERM) as soon as its output file holds anything. Block-buffered, that
// happens only once 4 KB are waiting, cut wherever the buffer ends (or never within a minute).
TEST(OutputLines, AStoppedRunKeepsWholeLinesInItsOutputFile) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-output-lines-" + std::to_string(::getpid()));
  fs::remove_all(dir);  // an empty cache: nothing compiles at once
  fs::create_directories(dir);
  const fs::path out = dir / "compile.log";
  const test::Ran r = test::run_command(test::stopped_compile(out.string(), (dir / "cache").string()));
  EXPECT_NE(r.output.find("stopped 143"), std::string::npos) << r.output;  // killed, not finished
  const std::string text = read_file(out);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "the output ends part way through a line:\n" << text.substr(text.size() - std::min<size_t>(text.size(), 200));
  EXPECT_LT(text.size(), 4096u) << "stopped only once a 4 KB buffer was written";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
