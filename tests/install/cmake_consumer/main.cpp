// Simplifies a model through the C++ API of an installed onnxtrim. Usage: consumer IN OUT
#include <onnxtrim/onnxtrim.hpp>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  try {
    onnxtrim::Model m = onnxtrim::Model::load(argv[1]);
    onnxtrim::Options o;
    o.set("dim", "batch=2");
    onnxtrim::Report r = onnxtrim::simplify(m, o);
    m.save(argv[2]);
    std::cout << "nodes " << r.before.nodes << " -> " << r.after.nodes << ", check "
              << (r.verification.ran && r.verification.ok ? "ok" : "not run") << "\n";
    if (!(r.verification.ran && r.verification.ok) || r.after.nodes > r.before.nodes) return 1;
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
