#include "support/status.h"

#include "support/text.h"

namespace onnxtrim {

std::string Status::message() const {
  if (is_ok()) return "ok";
  std::string out;
  if (!file_.empty()) out += file_ + ": ";
  if (!node_.empty()) out += "node '" + node_ + "': ";
  out += detail_;
  return support::printable(out);
}

}  // namespace onnxtrim
