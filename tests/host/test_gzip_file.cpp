// Results files read gzipped or not: large committed ones are stored as NAME.json.gz, and CI
// systems return artifacts compressed. A damaged or cut-short file is refused with its name, never
// read as a shorter document.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "run_ktune.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/gzip_file.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

class GzipFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-gzip-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // gzip(1), the tool users compress with, so the reader is checked against its output.
  fs::path gzipped(const fs::path& plain, const std::string& name) {
    const fs::path out = dir_ / name;
    const std::string cmd = "gzip -c '" + plain.string() + "' > '" + out.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out;
  }

  fs::path dir_;
};

TEST_F(GzipFile, PlainFilesAreReadAsTheyAre) {
  write_file_atomic(dir_ / "plain.json", "{\"a\": 1}\n");
  EXPECT_EQ(read_file_inflated(dir_ / "plain.json"), "{\"a\": 1}\n");
  EXPECT_FALSE(is_gzip("{\"a\": 1}"));
  EXPECT_FALSE(is_gzip("\x1f"));
  EXPECT_TRUE(is_gzip(std::string("\x1f\x8b\x08", 3)));
}

TEST_F(GzipFile, GzipOutputInflatesToTheOriginalBytesWhateverTheName) {
  // Longer than one 64 KiB output chunk, so the inflate loop turns more than once.
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i * 7919 % 100003) + "\n";
  write_file_atomic(dir_ / "big.txt", text);
  EXPECT_EQ(read_file_inflated(gzipped(dir_ / "big.txt", "big.txt.gz")), text);
  EXPECT_EQ(read_file_inflated(gzipped(dir_ / "big.txt", "no-suffix.json")), text);  // by its bytes
}

TEST_F(GzipFile, ConcatenatedMembersReadAsOneStreamAsGunzipDoes) {
  write_file_atomic(dir_ / "a", "first,");
  write_file_atomic(dir_ / "b", "second\n");
  const std::string a = read_file(gzipped(dir_ / "a", "a.gz")), b = read_file(gzipped(dir_ / "b", "b.gz"));
  write_file_atomic(dir_ / "ab.gz", a + b);
  EXPECT_EQ(read_file_inflated(dir_ / "ab.gz"), "first,second\n");
}

TEST_F(GzipFile, CutShortOrDamagedFilesAreRefusedWithTheirName) {
  std::string text(100000, 'x');
  for (size_t i = 0; i < text.size(); i += 13) text[i] = static_cast<char>('a' + i % 26);
  write_file_atomic(dir_ / "t", text);
  const std::string packed = read_file(gzipped(dir_ / "t", "t.gz"));
  write_file_atomic(dir_ / "cut.gz", packed.substr(0, packed.size() / 2));
  try {
    read_file_inflated(dir_ / "cut.gz");
    ADD_FAILURE() << "a file cut in half was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.gz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
  std::string damaged = packed;
  damaged[damaged.size() - 6] ^= 0x5a;  // inside the CRC-32 of the trailer, or the data before it
  write_file_atomic(dir_ / "damaged.gz", damaged);
  EXPECT_THROW(read_file_inflated(dir_ / "damaged.gz"), Error);
}

TEST_F(GzipFile, CommandsTakeGzippedResultsAndNameTheReportAfterTheJson) {
  const fs::path committed = KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json.gz";
  ASSERT_TRUE(is_gzip(read_file(committed)));
  write_file_atomic(dir_ / "run.json", read_file_inflated(committed));
  RunInfo plain_info, packed_info;
  const auto plain = read_results(dir_ / "run.json", &plain_info);
  const auto packed = read_results(committed, &packed_info);
  ASSERT_EQ(plain.size(), packed.size());
  EXPECT_EQ(plain_info.command, packed_info.command);
  EXPECT_EQ(plain.front().records.size(), packed.front().records.size());

  const std::string json = (dir_ / "run.json").string(), gz = committed.string();
  EXPECT_EQ(test::run_ktune("compare " + json + " " + gz).exit_code, 0);
  const test::Ran report = test::run_ktune("report " + gz + " --out " + dir_.string() + " --cache-dir " + (dir_ / "c").string());
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(fs::exists(dir_ / "gemm-4096-fp16-rr-report.md"));
  EXPECT_EQ(results_stem("x/bench-a.json.gz"), "bench-a");
  EXPECT_EQ(results_stem("bench-a.json"), "bench-a");

  // A cut-short results file: exit 2 and the file's name, as any unreadable input.
  write_file_atomic(dir_ / "cut.json.gz", read_file(committed).substr(0, 4000));
  const test::Ran cut = test::run_ktune("compare " + json + " " + (dir_ / "cut.json.gz").string());
  EXPECT_EQ(cut.exit_code, 2) << cut.output;
  EXPECT_NE(cut.output.find("cut.json.gz: cannot read it as gzip"), std::string::npos) << cut.output;
}

}  // namespace
}  // namespace ktune
