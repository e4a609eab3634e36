// What a run did to a model: statistics before and after, time per stage, per-pass figures.
// Rendered as text for people and as JSON for scripts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace onnxtrim {

struct ModelStats {
  int64_t nodes = 0;               // every node, subgraphs included
  int64_t top_level_nodes = 0;
  std::map<std::string, int64_t> op_histogram;  // "Conv", "com.microsoft.Attention"
  int64_t initializers = 0;
  int64_t initializer_bytes = 0;
  int64_t file_bytes = -1;         // -1: not known (not written yet)
};

ModelStats compute_stats(const ir::Model& m);

struct PassStats {
  std::string name;
  int64_t runs = 0;
  int64_t changes = 0;
  int64_t nodes_removed = 0;
  double seconds = 0;
};

struct Report {
  std::string input_path;
  std::string output_path;
  ModelStats before;
  ModelStats after;
  std::vector<std::pair<std::string, double>> stages;  // name, seconds
  std::vector<PassStats> passes;
  int rounds = 0;
  bool converged = true;
  std::vector<std::string> warnings;

  std::string to_text() const;
  std::string to_json() const;
};

std::string json_escape(const std::string& s);
std::string human_bytes(int64_t n);

}  // namespace onnxtrim
