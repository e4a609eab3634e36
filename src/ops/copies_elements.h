// Ops whose every output element is a copy of one element of a float input (Transpose,
// Gather, Slice, Concat, ...): a property each op file declares with its registration (section
// 6 of DESIGN.md's "One op, one file"). For such an op, rounding its inputs to another float
// type and running it gives exactly its output rounded, element by element: the float
// conversion (convert_float.cc) measures such a node's error in the target type from the
// output alone, with no rounded copy of its inputs and no second run (a 500 MB embedding's
// Transpose no longer needs three of them in memory at once).
// An op qualifies only if every float element it writes comes from a float input of the same
// type: an attribute-valued fill (Pad-2's `value`) or any arithmetic disqualifies it.
#pragma once

#include <string>
#include <string_view>

namespace onnxtrim::ops {

void register_copies_elements(std::string domain, std::string op_type);
bool copies_elements(std::string_view domain, std::string_view op_type);

// ONNXTRIM_REGISTER_COPIES_ELEMENTS(Transpose, "", "Transpose")
#define ONNXTRIM_REGISTER_COPIES_ELEMENTS(id, domain, op_type)   \
  static const bool onnxtrim_copies_registered_##id = [] {       \
    ::onnxtrim::ops::register_copies_elements(domain, op_type); \
    return true;                                                 \
  }()

}  // namespace onnxtrim::ops
