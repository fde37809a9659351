#pragma once
// Creates an empty cell variable of a label's value type, for code that
// handles variables it does not know statically (restart, tools).

#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/CCVariable.h"

#include <cstdint>
#include <memory>

namespace tessera {

inline std::unique_ptr<GridVariableBase> makeGridVariable(const VarLabel* label, const Box& box) {
  TESSERA_REQUIRE_THROWS(label->kind() == VarKind::CellCentered,
                         "'" << label->name() << "' is not a cell variable");
  const std::string& type = label->valueType();
  if (type == "double") return std::make_unique<CCVariable<double>>(box, label->name());
  if (type == "float") return std::make_unique<CCVariable<float>>(box, label->name());
  if (type == "int") return std::make_unique<CCVariable<int>>(box, label->name());
  if (type == "int64") return std::make_unique<CCVariable<std::int64_t>>(box, label->name());
  TESSERA_FAIL("no cell variable of value type '" << type << "' for '" << label->name() << "'");
}

}  // namespace tessera
