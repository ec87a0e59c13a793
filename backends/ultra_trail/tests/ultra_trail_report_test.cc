// The partition report of a build for ultra_trail: the tiles of each layer it runs in its
// memories (PartitionReport::tilings), as the table and the JSON print them.
#include <gtest/gtest.h>

#include "ultra_trail_test_util.h"
#include "uma/partition/report.h"

namespace uma::backends::ultra_trail::test {
namespace {

class UltraTrailReportTest : public UltraTrailTest {
 protected:
  // Builds @main for `target` with a report and returns it.
  PartitionReport built_report(const std::string& target) {
    PartitionReport report;
    build::BuildOptions o = options();
    o.report = &report;
    auto built = build::build(module, {target}, o);
    EXPECT_TRUE(built.ok()) << built.error().message();
    return report;
  }

  // x [1, 3, 40] → conv1 (8 channels, kernel 3, padding 1, a bias operand) → relu, then
  // conv2 (4 channels, kernel 5, stride 2, padding 2/1) + a [4, 1] bias when `two_layers`.
  void model(bool two_layers) {
    Value* x = main.add_param(tensor({1, 3, 40}), "x");
    Value* w1 = b.constant(random_tensor({8, 3, 3}, 1));
    w1->set_name("w1");
    Value* b1 = b.constant(random_tensor({8}, 2));
    b1->set_name("b1");
    Value* c1 = b.create("nn.conv1d", {x, w1, b1}, conv_attrs({1}, {1, 1}), "conv1")->result();
    Value* y = b.create("nn.relu", {c1}, {}, "relu1")->result();
    if (two_layers) {
      Value* w2 = b.constant(random_tensor({4, 8, 5}, 3));
      w2->set_name("w2");
      Value* c2 = b.create("nn.conv1d", {y, w2}, conv_attrs({2}, {2, 1}), "conv2")->result();
      Value* b2 = b.constant(random_tensor({4, 1}, 4));
      b2->set_name("b2");
      y = b.create("add", {c2, b2}, {}, "bias2")->result();
    }
    main.set_outputs({y});
  }
};

// With 1 KiB of feature memory, conv1's input (480 bytes) and output (1280) are cut in two
// stripes of time, single buffered (fewer moves than four double buffered ones). Its 2 tiles
// of 20 outputs read the input columns [-1, 20] and [19, 40], clamped 21 + 21 = 42 of 40: 2
// columns of 3 channels of f32 re-read, 24 bytes. conv2's 2 tiles of 10 outputs read
// [2o-2, 2o+20]: 21 + 22 = 43 of 40 columns of 8 channels, 96 bytes re-read. Weights and
// biases move once.
TEST_F(UltraTrailReportTest, TheTableHasALinePerTiledLayerAndOneUnderItPerOperand) {
  model(/*two_layers=*/true);
  EXPECT_EQ(built_report("ultra_trail --fmem_kb=1").to_table(),
            R"(id  name   op         target       composite           other targets
0   conv1  nn.conv1d  ultra_trail  ultra_trail.conv1d
1   relu1  nn.relu    ultra_trail  ultra_trail.conv1d
2   conv2  nn.conv1d  ultra_trail  ultra_trail.conv1d
3   bias2  add        ultra_trail  ultra_trail.conv1d

target       nodes       regions  MACs           bytes
ultra_trail  4 (100.0%)  1        6080 (100.0%)  4176 (100.0%)
host         0 (0.0%)    -        0 (0.0%)       0 (0.0%)
total        4           1        6080           4176

tiles
layer  composite           output  tile    tiles  buffering  wmem peak/capacity  fmem peak/capacity  bmem peak/capacity
  operand  role            memory  region  buffers  moves  transfers  bytes  halo bytes
conv1  ultra_trail.conv1d  1x8x40  1x8x20  2      single     288/65536           892/1024            32/2048
  x        features        fmem    1x3x21  1        2      2          504    24
  w1       weights         wmem    8x3x3   1        1      1          288    0
  b1       bias            bmem    8       1        1      1          32     0
  -        features (out)  fmem    1x8x20  1        2      2          1280   0
conv2  ultra_trail.conv1d  1x4x20  1x4x10  2      single     640/65536           864/1024            16/2048
  -        features        fmem    1x8x22  1        2      2          1376   96
  w2       weights         wmem    4x8x5   1        1      1          640    0
  b2       bias            bmem    4x1     1        1      1          16     0
  -        features (out)  fmem    1x4x10  1        2      2          320    0
)");
}

// The JSON has every number of the plan, as numbers.
TEST_F(UltraTrailReportTest, TheJsonHasEveryFieldOfThePlan) {
  model(/*two_layers=*/false);
  std::string json = built_report("ultra_trail --fmem_kb=1").to_json();
  std::size_t tilings = json.find("  \"tilings\": [");
  ASSERT_NE(tilings, std::string::npos) << json;
  EXPECT_EQ(json.substr(tilings), R"(  "tilings": [
    {
      "chunks": [
        3
      ],
      "composite": "ultra_trail.conv1d",
      "double_buffered": false,
      "function": "module_ultra_trail_main_0",
      "layer": "conv1",
      "memories": [
        {
          "capacity": 65536,
          "name": "wmem",
          "peak": 288
        },
        {
          "capacity": 1024,
          "name": "fmem",
          "peak": 892
        },
        {
          "capacity": 2048,
          "name": "bmem",
          "peak": 32
        }
      ],
      "operands": [
        {
          "buffers": 1,
          "bytes": 504,
          "halo_bytes": 24,
          "memory": "fmem",
          "moves": 2,
          "name": "x",
          "output": false,
          "role": "features",
          "tile": [
            1,
            3,
            21
          ],
          "tile_bytes": 252,
          "transfers": 2
        },
        {
          "buffers": 1,
          "bytes": 288,
          "halo_bytes": 0,
          "memory": "wmem",
          "moves": 1,
          "name": "w1",
          "output": false,
          "role": "weights",
          "tile": [
            8,
            3,
            3
          ],
          "tile_bytes": 288,
          "transfers": 1
        },
        {
          "buffers": 1,
          "bytes": 32,
          "halo_bytes": 0,
          "memory": "bmem",
          "moves": 1,
          "name": "b1",
          "output": false,
          "role": "bias",
          "tile": [
            8
          ],
          "tile_bytes": 32,
          "transfers": 1
        },
        {
          "buffers": 1,
          "bytes": 1280,
          "halo_bytes": 0,
          "memory": "fmem",
          "moves": 2,
          "name": "",
          "output": true,
          "role": "features",
          "tile": [
            1,
            8,
            20
          ],
          "tile_bytes": 640,
          "transfers": 2
        }
      ],
      "order": [
        2
      ],
      "output": [
        1,
        8,
        40
      ],
      "reductions": [
        3
      ],
      "tile": [
        1,
        8,
        20
      ],
      "tiles": 2,
      "traffic": 2104
    }
  ]
}
)");
}

}  // namespace
}  // namespace uma::backends::ultra_trail::test
