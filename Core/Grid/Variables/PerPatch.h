#pragma once
// One value per patch (a patch's flux sum, a flag) that stays on the patch's rank.

#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/TypeName.h"

#include <string>

namespace tessera {

template <class T>
class PerPatch {
 public:
  using value_type = T;
  static constexpr VarKind kind = VarKind::PerPatch;
  static std::string typeName() { return "PerPatch<" + TypeName<T>::get() + ">"; }

  PerPatch() = default;
  explicit PerPatch(const T& value) : m_value(value) {}
  const T& get() const { return m_value; }
  void set(const T& value) { m_value = value; }

 private:
  T m_value{};
};

}  // namespace tessera
