// util/fs: atomic writes, reading errors, the flock-based FileLock, the cache folder, FNV-1a.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

class FsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ktune_test_fs_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// Sets an environment variable (or unsets it: nullopt) for one scope.
class EnvGuard {
 public:
  EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~EnvGuard() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

int count_tmp_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tmp") ++n;
  return n;
}

TEST_F(FsTest, WriteAtomicCreatesParentsAndReplaces) {
  const fs::path file = dir_ / "a" / "b" / "out.json";
  write_file_atomic(file, "first");
  EXPECT_EQ(read_file(file), "first");
  write_file_atomic(file, std::string("sec\0ond", 7));
  EXPECT_EQ(read_file(file), std::string("sec\0ond", 7));
  EXPECT_EQ(count_tmp_files(file.parent_path()), 0);
}

TEST_F(FsTest, WriteAtomicKeepsPermissions) {
  const fs::path file = dir_ / "private.json";
  write_file_atomic(file, "x");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  write_file_atomic(file, "y");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(FsTest, WriteAtomicErrorNamesPath) {
  write_file_atomic(dir_ / "plain", "not a folder");
  const fs::path bad = dir_ / "plain" / "child.json";
  try {
    write_file_atomic(bad, "x");
    FAIL() << "expected ktune::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "plain").string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(dir_ / "plain"), "not a folder");
}

TEST_F(FsTest, ReadMissingFileNamesPathAndReason) {
  const fs::path missing = dir_ / "nope.json";
  try {
    read_file(missing);
    FAIL() << "expected ktune::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(missing.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
  }
}

TEST_F(FsTest, ReadLargeFile) {
  std::string big(300000, 'x');
  big[123456] = 'y';
  write_file_atomic(dir_ / "big", big);
  EXPECT_EQ(read_file(dir_ / "big"), big);
}

// Starts a thread that takes the lock on `target` and sets `acquired`; returns it running.
std::thread contender(const fs::path& target, std::atomic<bool>& acquired) {
  return std::thread([target, &acquired] {
    FileLock lock(target);
    acquired = true;
  });
}

TEST_F(FsTest, FileLockExcludesUntilReleased) {
  const fs::path target = dir_ / "cache.json";
  std::atomic<bool> acquired{false};
  std::thread other;
  {
    FileLock held(target);
    EXPECT_EQ(held.lock_path(), fs::path(target.string() + ".lock"));
    EXPECT_TRUE(fs::exists(held.lock_path()));
    other = contender(target, acquired);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(acquired.load()) << "second lock granted while the first was held";
  }
  other.join();
  EXPECT_TRUE(acquired.load());
}

TEST_F(FsTest, FileLockMoveKeepsLock) {
  const fs::path target = dir_ / "cache.json";
  std::atomic<bool> acquired{false};
  std::thread other;
  {
    std::optional<FileLock> moved;
    {
      FileLock original(target);
      moved.emplace(std::move(original));
    }  // the moved-from lock is gone; the lock must still be held by `moved`
    other = contender(target, acquired);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(acquired.load());
  }
  other.join();
  EXPECT_TRUE(acquired.load());
}

TEST(DefaultCacheDir, Precedence) {
  {
    EnvGuard k("KTUNE_CACHE_DIR", "/tmp/kt-cache");
    EnvGuard x("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(default_cache_dir(), fs::path("/tmp/kt-cache"));
  }
  {
    EnvGuard k("KTUNE_CACHE_DIR", std::nullopt);
    EnvGuard x("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(default_cache_dir(), fs::path("/tmp/xdg/ktune"));
  }
  {
    EnvGuard k("KTUNE_CACHE_DIR", "");
    EnvGuard x("XDG_CACHE_HOME", "relative/xdg");  // the XDG spec says: ignore
    EnvGuard h("HOME", "/home/someone");
    EXPECT_EQ(default_cache_dir(), fs::path("/home/someone/.cache/ktune"));
  }
}

TEST(Hash, Fnv1a64KnownValues) {
  // Reference values of 64-bit FNV-1a.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  // The seed chains: hashing in pieces equals hashing the whole.
  EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar"));
}

TEST(Hash, Hex64PadsToSixteenDigits) {
  EXPECT_EQ(hex64(0x1), "0000000000000001");
  EXPECT_EQ(hex64(0xcbf29ce484222325ull), "cbf29ce484222325");
}

}  // namespace
}  // namespace ktune
