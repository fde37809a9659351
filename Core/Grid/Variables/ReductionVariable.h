#pragma once
// A single value reduced over patches and ranks (a stable timestep, a norm).
// Contributions combine with Op; for floating-point sums the runtime combines
// them in patch-id order, so the result does not depend on the rank count.

#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/TypeName.h"

#include <limits>
#include <string>

namespace tessera {

template <class T>
struct MinOp {
  static constexpr const char* name = "min";
  static T identity() { return std::numeric_limits<T>::max(); }
  static T apply(const T& a, const T& b) { return b < a ? b : a; }
};

template <class T>
struct MaxOp {
  static constexpr const char* name = "max";
  static T identity() { return std::numeric_limits<T>::lowest(); }
  static T apply(const T& a, const T& b) { return a < b ? b : a; }
};

template <class T>
struct SumOp {
  static constexpr const char* name = "sum";
  static T identity() { return T{0}; }
  static T apply(const T& a, const T& b) { return a + b; }
};

template <class T, template <class> class OpTemplate>
class ReductionVariable {
 public:
  using value_type = T;
  using Op = OpTemplate<T>;
  static constexpr VarKind kind = VarKind::Reduction;
  static std::string typeName() {
    return std::string("ReductionVariable<") + TypeName<T>::get() + ", " + Op::name + ">";
  }

  ReductionVariable() = default;
  explicit ReductionVariable(const T& value) : m_value(value) {}

  const T& get() const { return m_value; }
  void set(const T& value) { m_value = value; }
  // Folds another contribution in.
  void reduce(const T& contribution) { m_value = Op::apply(m_value, contribution); }
  void reduce(const ReductionVariable& other) { reduce(other.m_value); }

 private:
  T m_value = Op::identity();
};

template <class T>
using MinVariable = ReductionVariable<T, MinOp>;
template <class T>
using MaxVariable = ReductionVariable<T, MaxOp>;
template <class T>
using SumVariable = ReductionVariable<T, SumOp>;

}  // namespace tessera
