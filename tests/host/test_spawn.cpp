// spawn_detached: the runtime's tuning on a miss starts a program that outlives the call. It must
// return before the program ends, send the program's output to the log, and say why where the
// program cannot be started.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "util/spawn.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Spawn, ReturnsAtOnceAndTheProgramWritesItsLog) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-spawn-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path log = dir / "log.txt";
  const fs::path done = dir / "done";
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  // The program sleeps before it finishes: the call must not wait for it.
  ASSERT_TRUE(spawn_detached({"sh", "-c", "echo to-stdout; echo to-stderr >&2; sleep 1; touch '" + done.string() + "'"},
                             log, &why))
      << why;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  EXPECT_FALSE(fs::exists(done));
  for (int i = 0; i < 100 && !fs::exists(done); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(done)) << "the detached program never finished";
  const std::string text = read_all(log);
  EXPECT_NE(text.find("to-stdout"), std::string::npos) << text;
  EXPECT_NE(text.find("to-stderr"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(Spawn, AProgramThatIsNotThereSaysWhy) {
  std::string why;
  EXPECT_FALSE(spawn_detached({"ktune-no-such-program-anywhere"}, fs::temp_directory_path() / "ktune-spawn-none.log", &why));
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  EXPECT_FALSE(spawn_detached({}, fs::temp_directory_path() / "ktune-spawn-none.log", &why));
}

}  // namespace
}  // namespace ktune
