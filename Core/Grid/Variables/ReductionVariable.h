#pragma once
// A single value reduced over patches and ranks (a stable timestep, a norm).
// Each patch puts a contribution; the runtime combines them with Op, in
// patch-id order. Sums of doubles are exact until read (ExactSum): their bits
// do not depend on the rank count, the patch layout, the thread count or the
// scheduler mode, provided each patch adds its terms into an ExactSum too.

#include "Core/Grid/VarLabel.h"
#include "Core/Grid/Variables/TypeName.h"
#include "Core/Util/ExactSum.h"

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
  // What a patch contributes and the runtime combines and sends.
  using contribution_type = T;
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

  const T& contribution() const { return m_value; }
  static T identityContribution() { return Op::identity(); }
  static void combine(T& accumulator, const T& contribution) {
    accumulator = Op::apply(accumulator, contribution);
  }
  static T finish(const T& accumulator) { return accumulator; }

 private:
  T m_value = Op::identity();
};

// A sum of doubles, kept exact until read.
template <>
class ReductionVariable<double, SumOp> {
 public:
  using value_type = double;
  using contribution_type = ExactSum;
  using Op = SumOp<double>;
  static constexpr VarKind kind = VarKind::Reduction;
  static std::string typeName() { return "ReductionVariable<double, sum>"; }

  ReductionVariable() = default;
  explicit ReductionVariable(double value) : m_sum(value) {}
  // A patch's terms, added exactly (Kokkos::Sum<ExactSum> in its kernel).
  explicit ReductionVariable(const ExactSum& sum) : m_sum(sum) {}

  // The exact sum, rounded once.
  double get() const { return m_sum.value(); }
  void set(double value) { m_sum = ExactSum(value); }
  void reduce(double contribution) { m_sum.add(contribution); }
  void reduce(const ReductionVariable& other) { m_sum += other.m_sum; }

  const ExactSum& contribution() const { return m_sum; }
  static ExactSum identityContribution() { return ExactSum(); }
  static void combine(ExactSum& accumulator, const ExactSum& contribution) {
    accumulator += contribution;
  }
  static double finish(const ExactSum& accumulator) { return accumulator.value(); }

 private:
  ExactSum m_sum;
};

template <class T>
using MinVariable = ReductionVariable<T, MinOp>;
template <class T>
using MaxVariable = ReductionVariable<T, MaxOp>;
template <class T>
using SumVariable = ReductionVariable<T, SumOp>;

}  // namespace tessera
