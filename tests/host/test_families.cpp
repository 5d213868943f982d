// The family model seen from outside any one family: every registered family is complete, a
// sweep config's dtype and option lists multiply out through the family's schema, and each
// family's rate is in its own unit.
#include <gtest/gtest.h>

#include <set>

#include "compile/embedded.hpp"
#include "families/family.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

TEST(Families, EveryFamilyHasItsSchemaConfigsAndSubcommandNames) {
  std::set<std::string> names;
  for (const KernelFamily* f : all_families()) {
    EXPECT_TRUE(names.insert(std::string(f->name())).second) << f->name() << " registered twice";
    const ProblemSchema s = f->schema();
    EXPECT_FALSE(s.dims.empty()) << f->name();
    EXPECT_FALSE(s.dtypes.empty()) << f->name();
    ASSERT_FALSE(f->default_configs().empty()) << f->name();
    for (std::string_view path : f->default_configs()) {
      // Each default config parses with its family's names, and its own problems are the family's:
      // a built-in family's are embedded, a declared one's (declared by another test in this
      // process) are files beside its declaration.
      auto text = find_embedded(path);
      ASSERT_TRUE(text || !f->declaration_file().empty()) << path << " is not embedded";
      SweepConfig c = text ? parse_family_config(*f, *text, std::string(path))
                           : load_family_config(*f, std::filesystem::path(path));
      EXPECT_EQ(c.family, f->name());
      ConfigProblems made = config_problems(c, c.problems);
      EXPECT_FALSE(made.problems.empty()) << path;
    }
    // Every dimension a context needs is in the schema: a problem made of the schema alone binds
    // (every dimension 128, a size every family takes: attention's head_dim has three).
    Problem p{std::string(f->name()), {}, s.dtypes.front(), {}};
    for (const DimSpec& d : s.dims) p.dims[d.name] = 128;
    complete_options(p);
    EXPECT_NO_THROW(check_problem(p)) << f->name();
    const Bindings ctx = f->context(p, arch_facts_offline("sm_90a"));
    for (const std::string& n : f->context_names()) EXPECT_TRUE(ctx.count(n)) << f->name() << " does not bind " << n;
    EXPECT_GT(f->cost(p).min_bytes, 0) << f->name();
  }
  EXPECT_TRUE(names.count("gemm"));
  EXPECT_TRUE(names.count("add"));
}

SweepConfig gemm_config(const std::string& lists) {
  const KernelFamily& gemm = find_family("gemm");
  return parse_family_config(gemm, R"({"name": "t", "family": "gemm", "kernel": "k.cu", "kernel_name": "k<{X}>",
    "parameters": {"X": [1]}, "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
    "problems": [{"M": 64, "N": 64, "K": 64}], )" + lists + "}",
                            "t.json");
}

TEST(Families, ConfigListsMultiplyOutAndWhatTheFamilyRefusesIsSkipped) {
  ConfigProblems made = config_problems(gemm_config(R"("dtypes": ["fp16", "fp8"], "options": {"layout": ["rr", "rc"]})"),
                                        {{{"M", 64}, {"N", 64}, {"K", 64}}});
  std::vector<std::string> got;
  for (const Problem& p : made.problems) got.push_back(describe(p));
  EXPECT_EQ(got, (std::vector<std::string>{"gemm 64x64x64 fp16 rr", "gemm 64x64x64 fp16 rc", "gemm 64x64x64 fp8 rc"}));
  ASSERT_EQ(made.skipped.size(), 1u);  // fp8 takes layout rc only
  EXPECT_EQ(made.skipped[0].first.option("layout"), "rr");
  EXPECT_NE(made.skipped[0].second.find("fp8"), std::string::npos);
}

TEST(Families, ConfigWithoutListsGetsTheFamilyDefaults) {
  ConfigProblems made = config_problems(gemm_config(R"("description": "")"), {{{"M", 8}, {"N", 8}, {"K", 8}}});
  ASSERT_EQ(made.problems.size(), 1u);
  EXPECT_EQ(describe(made.problems[0]), "gemm 8x8x8 fp16 rr");
}

TEST(Families, AnOptionTheFamilyDoesNotHaveIsAnError) {
  EXPECT_THROW(config_problems(gemm_config(R"("options": {"transpose": ["yes"]})"), {{{"M", 8}, {"N", 8}, {"K", 8}}}),
               ConfigError);
  // And a value it does not take is skipped, not tuned.
  ConfigProblems made =
      config_problems(gemm_config(R"("options": {"layout": ["rx"]})"), {{{"M", 8}, {"N", 8}, {"K", 8}}});
  EXPECT_TRUE(made.problems.empty());
  ASSERT_EQ(made.skipped.size(), 1u);
  EXPECT_NE(made.skipped[0].second.find("unknown layout 'rx'"), std::string::npos);
}

TEST(Families, RatesAreInTheFamilysUnit) {
  const Problem gemm{"gemm", {{"M", 8}, {"N", 8}, {"K", 8}}, "fp16", {{"layout", "rr"}}};
  const Problem add{"add", {{"N", 1024}}, "fp32", {}};
  EXPECT_EQ(rate_unit(gemm), "TFLOPS");
  EXPECT_EQ(rate_unit(add), "GB/s");
  EXPECT_EQ(rate_text(gemm, 700.04, 3.0), "700.0 TFLOPS");
  EXPECT_EQ(rate_text(add, 0.25, 3012.4), "3012 GB/s");
  EXPECT_DOUBLE_EQ(rate_value(add, 0.25, 3012.4), 3012.4);
}

TEST(Families, AddChecksItsSize) {
  EXPECT_THROW(check_problem(Problem{"add", {{"N", 0}}, "fp32", {}}), ConfigError);
  EXPECT_THROW(check_problem(Problem{"add", {{"N", 10}}, "fp8", {}}), ConfigError);
  EXPECT_NO_THROW(check_problem(Problem{"add", {{"N", 268435457}}, "bf16", {}}));
  // 2 reads and a write of each element; one flop.
  const Cost c = find_family("add").cost(Problem{"add", {{"N", 1000}}, "fp16", {}});
  EXPECT_DOUBLE_EQ(c.min_bytes, 6000);
  EXPECT_DOUBLE_EQ(c.flops, 1000);
}

}  // namespace
}  // namespace ktune
