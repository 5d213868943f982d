// "tensor_maps" in a sweep config: parsed with positions, evaluated per candidate into the launch,
// carried through JSON to the worker.
#include <gtest/gtest.h>

#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "store/record_json.hpp"

namespace ktune {
namespace {

const std::vector<std::string> kContext = {"M", "N", "K", "elem_bytes"};
const std::vector<std::string> kOperands = {"A", "B", "C"};

std::string config_with(const std::string& tensor_maps) {
  return R"j({"name": "t", "family": "gemm", "kernel": "k.cu", "kernel_name": "k<{BLOCK_M}>",
  "parameters": {"BLOCK_M": [64, 128]},
  "launch": {"grid": ["cdiv(M, BLOCK_M)", "1", "1"], "block": ["128", "1", "1"]},
  "tensor_maps": )j" + tensor_maps + "}";
}

TEST(TensorMaps, BoxesAreEvaluatedPerCandidate) {
  SweepConfig c = parse_sweep_config(
      config_with(R"j({"A": {"box": ["128 / elem_bytes", "BLOCK_M"], "swizzle": 128}, "B": {"box": [64, 32]}})j"),
      "t.json", kContext, {}, kOperands);
  ASSERT_EQ(c.tensor_maps.size(), 2u);
  auto cands = enumerate(c, {{"M", 256}, {"N", 256}, {"K", 256}, {"elem_bytes", 2}}, {}).candidates;
  ASSERT_EQ(cands.size(), 2u);
  const Launch& l = cands[1].launch;
  ASSERT_EQ(l.tensor_maps.size(), 2u);
  EXPECT_EQ(l.tensor_maps[0].operand, "A");
  EXPECT_EQ(l.tensor_maps[0].box[0], 64);
  EXPECT_EQ(l.tensor_maps[0].box[1], 128);
  EXPECT_EQ(l.tensor_maps[0].swizzle, 128);
  EXPECT_EQ(l.tensor_maps[1].operand, "B");
  EXPECT_EQ(l.tensor_maps[1].box[1], 32);
  EXPECT_EQ(l.tensor_maps[1].swizzle, 0);

  nlohmann::json j = l;
  Launch back = j.get<Launch>();
  ASSERT_EQ(back.tensor_maps.size(), 2u);
  EXPECT_EQ(back.tensor_maps[0].box[1], 128);
  EXPECT_EQ(back.tensor_maps[0].swizzle, 128);
}

// A kernel may store C through TMA: "C" is an operand like A and B.
TEST(TensorMaps, OutputMayBeATensorMap) {
  SweepConfig c = parse_sweep_config(config_with(R"j({"C": {"box": ["64", "BLOCK_M"], "swizzle": 128}})j"),
                                     "t.json", kContext, {}, kOperands);
  ASSERT_EQ(c.tensor_maps.size(), 1u);
  auto cands = enumerate(c, {{"M", 256}, {"N", 256}, {"K", 256}, {"elem_bytes", 2}}, {}).candidates;
  ASSERT_EQ(cands[0].launch.tensor_maps.size(), 1u);
  EXPECT_EQ(cands[0].launch.tensor_maps[0].operand, "C");
  EXPECT_EQ(cands[0].launch.tensor_maps[0].box[1], 64);
}

TEST(TensorMaps, ParameterUsedOnlyInABoxHasAnEffect) {
  std::string text = R"j({"name": "t", "family": "gemm", "kernel": "k.cu", "kernel_name": "k",
  "parameters": {"BOX": [32, 64]},
  "launch": {"grid": ["1", "1", "1"], "block": ["128", "1", "1"]},
  "tensor_maps": {"A": {"box": ["BOX", "BOX"]}}})j";
  EXPECT_NO_THROW(parse_sweep_config(text, "t.json", kContext, {}, kOperands));
}

TEST(TensorMaps, BadInputIsReportedWithPosition) {
  auto message = [](const std::string& maps) {
    try {
      parse_sweep_config(config_with(maps), "t.json", kContext, {}, kOperands);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"j({"A": {"box": ["64", "64"], "swizzle": 100}})j").find("swizzle 100"), std::string::npos);
  EXPECT_NE(message(R"j({"D": {"box": ["64", "64"]}})j").find("is not one of A, B, C"), std::string::npos);
  EXPECT_NE(message(R"j({"A": {"box": ["64"]}})j").find("list of 2"), std::string::npos);
  EXPECT_NE(message(R"j({"A": {"box": ["64", "NOPE"]}})j").find("NOPE"), std::string::npos);
  EXPECT_EQ(message(R"j({"A": {"box": ["64", "64"], "swizzle": 100}})j").rfind("t.json:", 0), 0u);
}

// The operand names are the family's: a family with none rejects every tensor map.
TEST(TensorMaps, OperandNamesAreTheFamilys) {
  const std::string maps = R"j({"Q": {"box": ["64", "BLOCK_M"], "swizzle": 128}})j";
  EXPECT_NO_THROW(parse_sweep_config(config_with(maps), "t.json", kContext, {}, {"Q", "K", "V"}));
  try {
    parse_sweep_config(config_with(maps), "t.json", kContext, {}, {});
    ADD_FAILURE() << "a family without tensor maps took one";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("take no tensor maps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ktune
