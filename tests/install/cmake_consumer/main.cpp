// Uses the C++ API of an installed onnxtrim: load, simplify, save, verify, run, infer_shapes,
// inspect_json, and an error's exit code. Usage: consumer IN OUT (IN: examples/dirty.onnx)
#include <onnxtrim/onnxtrim.hpp>

#include <cmath>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  try {
    onnxtrim::Model original = onnxtrim::Model::load(argv[1]);
    onnxtrim::Model m = original.clone();
    onnxtrim::Options o;
    o.set("dim", "batch=2");
    onnxtrim::Report r = onnxtrim::simplify(m, o);
    m.save(argv[2]);
    std::cout << "nodes " << r.before.nodes << " -> " << r.after.nodes << ", check "
              << (r.verification.ran && r.verification.ok ? "ok" : "not run") << "\n";
    if (!(r.verification.ran && r.verification.ok) || r.after.nodes > r.before.nodes) return 1;
    if (r.to_json().find("\"verification\"") == std::string::npos) return 1;

    onnxtrim::Verification v = onnxtrim::verify(original, onnxtrim::Model::load(argv[2]), o);
    std::cout << "verify: " << (v.ok ? "ok" : "differs") << ", " << v.outputs.size() << " output(s)\n";
    if (!v.ok || v.outputs.empty()) return 1;

    // The evaluator, on a caller's buffer (not copied): the same outputs from both models.
    std::vector<float> image(2 * 3 * 8 * 8, 0.5f);
    onnxtrim::Tensor in;
    in.dtype = 1;  // FLOAT
    in.shape = {2, 3, 8, 8};
    in.data = image.data();
    in.nbytes = image.size() * sizeof(float);
    auto a = onnxtrim::run(original, {{"input", in}});
    auto b = onnxtrim::run(m, {{"input", in}});
    const onnxtrim::Tensor& la = a.at("logits");
    const onnxtrim::Tensor& lb = b.at("logits");
    if (la.shape != std::vector<int64_t>{2, 10} || lb.shape != la.shape || la.nbytes != 80) return 1;
    const float* pa = static_cast<const float*>(la.data);
    const float* pb = static_cast<const float*>(lb.data);
    for (int i = 0; i < 20; ++i)
      if (std::fabs(pa[i] - pb[i]) > 1e-4f * (1 + std::fabs(pa[i]))) return 1;
    std::cout << "run: logits[0] " << pa[0] << " / " << pb[0] << "\n";

    onnxtrim::Model shaped = original.clone();
    onnxtrim::infer_shapes(shaped);
    if (shaped.to_text().find("batch") == std::string::npos) return 1;
    if (onnxtrim::inspect_json(original).find("\"op_histogram\"") == std::string::npos) return 1;
    try {
      onnxtrim::Model::load("/nonexistent/model.onnx");
      return 1;
    } catch (const onnxtrim::Error& e) {
      std::cout << "error " << e.exit_code() << ": " << e.what() << "\n";
      if (e.exit_code() != onnxtrim::kExitIo) return 1;
    }
  } catch (const onnxtrim::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
