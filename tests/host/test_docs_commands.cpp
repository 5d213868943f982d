// Every ktune command the README, docs/ and the examples' READMEs show exists as written: each
// subcommand is one `ktune --help` lists, and each --flag one its --help lists. A renamed flag or
// a removed command fails here, not in a reader's terminal.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_ktune.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

struct Help {
  std::set<std::string> flags, subcommands;
};

// What `ktune [global] CHAIN --help` lists: its options' long and short names, its subcommands.
Help help_of(const std::string& global, const std::vector<std::string>& chain) {
  static std::map<std::string, Help> cache;
  std::string args = global;
  for (const std::string& c : chain) args += " " + c;
  if (auto it = cache.find(args); it != cache.end()) return it->second;
  const test::Ran r = test::run_ktune(args + " --help", "", KTUNE_SOURCE_DIR);
  Help h;
  std::istringstream lines(r.output);
  const std::regex subcommand(R"(\s{2}(\S+)\s.*)"), flag(R"((^|[\s,])(--?[A-Za-z][\w-]*))");
  bool in_subcommands = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Subcommands:")) in_subcommands = true;
    if (line.starts_with("Options:") || line.starts_with("Positionals:")) in_subcommands = false;
    std::smatch m;
    if (in_subcommands && std::regex_match(line, m, subcommand)) h.subcommands.insert(m[1]);
    for (std::sregex_iterator f(line.begin(), line.end(), flag), end; f != end; ++f)
      h.flags.insert((*f)[2]);
  }
  return cache[args] = h;
}

struct Shown {
  std::string file, command;
};

// The ktune commands in fenced sh blocks: "ktune ..." or "./build/ktune ...", comments dropped,
// continued lines joined.
std::vector<Shown> shown_commands() {
  std::vector<fs::path> pages = {fs::path(KTUNE_SOURCE_DIR) / "README.md"};
  for (const char* dir : {"docs", "examples"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(KTUNE_SOURCE_DIR) / dir))
      if (e.path().extension() == ".md") pages.push_back(e.path());
  std::vector<Shown> out;
  for (const fs::path& page : pages) {
    std::istringstream text(read_file(page));
    bool in_sh = false;
    std::string pending;
    for (std::string line; std::getline(text, line);) {
      if (line.starts_with("```")) {
        in_sh = !in_sh && (line == "```sh" || line == "```bash");
        continue;
      }
      if (!in_sh) continue;
      if (size_t hash = line.find(" #"); hash != std::string::npos) line = line.substr(0, hash);
      pending += line;
      if (!pending.empty() && pending.back() == '\\') {
        pending.pop_back();
        continue;
      }
      std::string c = std::regex_replace(pending, std::regex(R"(^\s*(\./build/)?)"), "");
      pending.clear();
      if (c.starts_with("ktune ")) out.push_back({page.filename().string(), c});
    }
  }
  return out;
}

TEST(DocsCommands, EveryShownCommandAndFlagExists) {
  const std::vector<Shown> shown = shown_commands();
  ASSERT_GT(shown.size(), 20u);
  for (const Shown& s : shown) {
    std::istringstream words(s.command.substr(6));
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    // Global flags first (--family-path DIR), then the subcommand chain, then its arguments.
    std::string global;
    size_t i = 0;
    while (i + 1 < tokens.size() && tokens[i] == "--family-path") global += " --family-path " + tokens[i + 1], i += 2;
    // The walkthrough's commands run in a folder of the reader's (--family-path .): the test
    // FamilyWalkthrough runs them there.
    if (global.find("--family-path . ") != std::string::npos || global.ends_with("--family-path .")) continue;
    std::vector<std::string> chain;
    for (; i < tokens.size(); ++i) {
      const Help h = help_of(global, chain);
      if (!h.subcommands.count(tokens[i])) break;
      chain.push_back(tokens[i]);
    }
    ASSERT_FALSE(chain.empty()) << s.file << ": `" << s.command << "`: no such ktune command";
    const Help h = help_of(global, chain);
    for (; i < tokens.size(); ++i) {
      const std::string flag = tokens[i].substr(0, tokens[i].find('='));
      if (!flag.starts_with("--")) continue;
      EXPECT_TRUE(h.flags.count(flag)) << s.file << ": `" << s.command << "`: " << flag << " is not a flag of `ktune"
                                       << global << " " << chain.back() << "`";
    }
  }
}

}  // namespace
}  // namespace ktune
