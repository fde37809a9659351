#include "Components/Gemm/Gemm.h"

#include "Core/Parallel/Communicator.h"
#include "Core/Parallel/MemoryBudget.h"
#include "Core/Util/Logger.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace tessera {

using gemm::GridCell;
using gemm::Range;

Gemm::Gemm(ApplicationContext& context)
    : Application(context),
      m_a(context.labels.create<BlockVariable<double>>("A")),
      m_b(context.labels.create<BlockVariable<double>>("B")),
      m_c(context.labels.create<BlockVariable<double>>("C")),
      m_partial(context.labels.create<BlockVariable<double>>("C_partial")),
      m_maxError(context.labels.create<MaxVariable<double>>("max_error")),
      m_relativeError(context.labels.create<MaxVariable<double>>("relative_error")) {}

Schema Gemm::deckSchema() const {
  Schema schema("C = alpha A B + beta C, communication-optimal (COSMA) on block variables");
  schema.required("m", ValueType::Int, "rows of A and C")
      .range("m", 1)
      .required("n", ValueType::Int, "columns of B and C")
      .range("n", 1)
      .required("k", ValueType::Int, "columns of A, rows of B")
      .range("k", 1)
      .optional("alpha", ValueType::Double, "default 1")
      .optional("beta", ValueType::Double, "default 0")
      .optional("memory_words", ValueType::Double,
                "S: the words one rank may hold (default: unlimited)")
      .range("memory_words", 0)
      .optional("strategy", ValueType::NameOrTriple,
                "cosma (default), 2d (a SUMMA-like grid), or a grid [pm, pn, pk]")
      .oneOf("strategy", {"cosma", "2d"})
      .range("strategy", 1)
      .optional("max_idle_ranks", ValueType::Int, "default: as many as pay off")
      .range("max_idle_ranks", 0)
      .optional("flops_per_word", ValueType::Double,
                "the machine balance the planner weighs idle ranks with (default 512)")
      .range("flops_per_word", 0)
      .optional("local", ValueType::String, "the local multiply: blas (default) or kokkos")
      .oneOf("local", {"blas", "kokkos"})
      .optional("values", ValueType::String, "integers (default: exact results) or reals")
      .oneOf("values", {"integers", "reals"})
      .optional("verify", ValueType::Bool,
                "check C against a reference dgemm at the end (default true)");
  return schema;
}

void Gemm::problemSetup(const ProblemSpec& deck, Grid& grid) {
  (void)grid;
  const ProblemSpec spec = deck.section("gemm");
  gemm::Request request;
  request.shape = {spec.get<int>("m"), spec.get<int>("n"), spec.get<int>("k")};
  request.ranks = context().comm.size();
  m_alpha = spec.get<double>("alpha", 1.0);
  m_beta = spec.get<double>("beta", 0.0);
  if (spec.has("memory_words")) {
    m_memoryWords = static_cast<std::int64_t>(std::floor(spec.get<double>("memory_words")));
    request.memoryWords = m_memoryWords;
  }
  std::optional<std::string> strategy;
  if (spec.has("strategy")) {
    try {
      strategy = spec.get<std::string>("strategy");
    } catch (const DeckError&) {
      const IntVector grid3 = spec.get<IntVector>("strategy");
      request.strategy = gemm::Strategy::Explicit;
      request.grid = {grid3[0], grid3[1], grid3[2]};
    }
  }
  if (strategy == std::string("2d")) request.strategy = gemm::Strategy::TwoD;
  if (spec.has("max_idle_ranks")) request.maxIdleRanks = spec.get<int>("max_idle_ranks");
  request.flopsPerWord = spec.get<double>("flops_per_word", request.flopsPerWord);
  m_local = spec.get<std::string>("local", "blas") == "kokkos" ? gemm::LocalKernel::Kokkos
                                                               : gemm::LocalKernel::Blas;
  m_entries.integers = spec.get<std::string>("values", "integers") == "integers";
  m_verify = spec.get<bool>("verify", true);
  try {
    m_layout.emplace(gemm::plan(request));
  } catch (const Error& e) {
    const std::string key = request.strategy == gemm::Strategy::Explicit ? "strategy"
                            : request.memoryWords                        ? "memory_words"
                                                                         : "strategy";
    throw spec.has(key) ? spec.errorAtValue(key, e.what()) : spec.errorHere(e.what());
  }
  // Refused before anything is allocated, alike on every rank (the plan is
  // the same everywhere; the budget is agreed with the deck's other checks).
  const double needed = 8.0 * gemm::maxWordsHeld(plan(), m_verify);
  if (const auto budget = memoryBudgetPerRank(context().comm);
      budget && needed > static_cast<double>(budget->bytesPerRank)) {
    std::ostringstream why;
    why << std::setprecision(4) << "a " << request.shape.m << " x " << request.shape.n << " x "
        << request.shape.k << " product on grid " << gemm::describe(plan().grid)
        << " holds up to " << needed << " bytes on one rank (its slices of A, B and C, what it "
        << "receives" << (m_verify ? ", the check" : "") << "), but a rank has "
        << budget->bytesPerRank << " bytes: " << budget->source
        << "; use more ranks, smaller sizes" << (m_verify ? " or verify: false" : "");
    throw spec.errorHere(why.str());
  }
}

const gemm::GemmLayout& Gemm::layout() const {
  TESSERA_REQUIRE_THROWS(m_layout.has_value(), "the gemm component was used before problemSetup");
  return *m_layout;
}

void Gemm::reportPlan() const {
  const gemm::Plan& p = plan();
  std::ostringstream words;
  for (std::size_t q = 0; q < p.wordsReceived.size(); ++q)
    words << (q ? ", " : "") << p.wordsReceived[q];
  context().log.info("gemm: ", p.shape.m, " x ", p.shape.n, " x ", p.shape.k, " on grid ",
                     gemm::describe(p.grid), " (", p.usedRanks(), " of ", p.ranks, " ranks), ",
                     p.rounds, " round(s), local multiply ",
                     m_local == gemm::LocalKernel::Blas ? "blas" : "kokkos");
  context().log.info("gemm: predicted words received per rank per multiply: ", words.str(),
                     " (max ", p.maxWordsReceived(), "); I/O lower bound ", std::fixed,
                     std::setprecision(0), gemm::ioLowerBound(p.shape, p.ranks, m_memoryWords));
}

TaskSpace Gemm::gridSpace() const {
  TaskSpace space{"gemm grid " + gemm::describe(plan().grid), {}};
  for (int q = 0; q < plan().usedRanks(); ++q)
    space.ranks.push_back(q);
  return space;
}

void Gemm::declareLayouts(Scheduler& sched) const {
  const gemm::GemmLayout& blocks = layout();
  BlockLayout a = blocks.layoutA();
  BlockLayout b = blocks.layoutB();
  // Rounds double-buffer: round r + 2 lands where round r did, once its
  // multiply is done, while round r + 1 multiplies.
  if (plan().rounds > 1) {
    a.setReceiveBuffers(2 * (plan().grid.pn - 1));
    b.setReceiveBuffers(2 * (plan().grid.pm - 1));
  }
  sched.setBlockLayout(m_a, std::move(a));
  sched.setBlockLayout(m_b, std::move(b));
  sched.setBlockLayout(m_c, blocks.layoutC());
  sched.setBlockLayout(m_partial, blocks.layoutPartial());
}

void Gemm::scheduleInitialize(const Level& level, Scheduler& sched) {
  (void)level;
  reportPlan();
  declareLayouts(sched);
  const gemm::GemmLayout& blocks = layout();
  Task task("Gemm::initialize", this, &Gemm::initialize);
  task.computesBlocks(m_a, [&blocks](int q) { return blocks.ownA(q); })
      .computesBlocks(m_b, [&blocks](int q) { return blocks.ownB(q); })
      .computesBlocks(m_c, [&blocks](int q) { return std::vector<BlockRef>{blocks.ownC(q)}; });
  sched.addTask(std::move(task), gridSpace());
}

void Gemm::scheduleTimeAdvance(const Level& level, Scheduler& sched) {
  (void)level;
  declareLayouts(sched);
  const gemm::GemmLayout& blocks = layout();
  // One task per product of an A slice and a B slice, so that the product
  // of the slices a rank holds runs while the others arrive.
  const VarLabel* target = direct() ? m_c : m_partial;
  const auto own = [this, &blocks](int q) {
    return std::vector<BlockRef>{direct() ? blocks.ownC(q) : q};
  };
  for (int round = 0; round < plan().rounds; ++round) {
    for (int product = 0; product < blocks.numProducts(); ++product) {
      Task task(
          "Gemm::multiply round " + std::to_string(round) + " product " + std::to_string(product),
          Task::IndexCallback([this, round, product](int q, const DataWarehouse& oldDW,
                                                     DataWarehouse& newDW, ExecutionContext& exec) {
            multiplyProduct(round, product, q, oldDW, newDW, exec);
          }));
      task.requiresBlocks(Task::OldDW, m_a,
                          [&blocks, round, product](int q) {
                            return std::vector<BlockRef>{blocks.aBlockOf(q, round, product)};
                          })
          .requiresBlocks(Task::OldDW, m_b, [&blocks, round, product](int q) {
            return std::vector<BlockRef>{blocks.bBlockOf(q, round, product)};
          });
      if (round == 0 && product == 0) {
        task.computesBlocks(target, own);
        if (direct() && m_beta != 0.0)
          task.requiresBlocks(Task::OldDW, m_c,
                              [&blocks](int q) { return std::vector<BlockRef>{blocks.ownC(q)}; });
      } else {
        task.modifiesBlocks(target, own);
      }
      sched.addTask(std::move(task), gridSpace());
    }
  }
  if (!direct()) {
    Task reduction("Gemm::reduce", this, &Gemm::reduce);
    reduction
        .requiresBlockSum(Task::NewDW, m_partial,
                          [&blocks](int q) { return blocks.partialSlices(q); })
        .requiresBlocks(Task::OldDW, m_c,
                        [&blocks](int q) { return std::vector<BlockRef>{blocks.ownC(q)}; })
        .computesBlocks(m_c, [&blocks](int q) { return std::vector<BlockRef>{blocks.ownC(q)}; });
    sched.addTask(std::move(reduction), gridSpace());
  }
  Task carried("Gemm::carry", this, &Gemm::carry);
  carried.requiresBlocks(Task::OldDW, m_a, [&blocks](int q) { return blocks.ownA(q); })
      .requiresBlocks(Task::OldDW, m_b, [&blocks](int q) { return blocks.ownB(q); })
      .computesBlocks(m_a, [&blocks](int q) { return blocks.ownA(q); })
      .computesBlocks(m_b, [&blocks](int q) { return blocks.ownB(q); });
  sched.addTask(std::move(carried), gridSpace());
}

void Gemm::scheduleAnalysis(const Level& level, Scheduler& sched) {
  (void)level;
  if (!m_verify) return;
  declareLayouts(sched);
  const gemm::GemmLayout& blocks = layout();
  Task task("Gemm::check", this, &Gemm::check);
  task.requiresBlocks(Task::OldDW, m_c,
                      [&blocks](int q) { return std::vector<BlockRef>{blocks.ownC(q)}; })
      .computesVar(m_maxError)
      .computesVar(m_relativeError);
  sched.addTask(std::move(task), gridSpace());
}

void Gemm::initialize(int q, const DataWarehouse&, DataWarehouse& newDW,
                      ExecutionContext& exec) const {
  const gemm::GemmEntries entries = m_entries;
  const auto fill = [&](const VarLabel* label, int block, int which) {
    const BlockView<double> v = newDW.allocateBlock<double>(label, block);
    exec.parallelFor(
        0, static_cast<int>(v.rows), KOKKOS_LAMBDA(const int i) {
          for (std::int64_t j = 0; j < v.cols; ++j) {
            const std::int64_t r = v.row0 + i, c = v.col0 + j;
            v(i, j) = which == 0 ? entries.a(r, c) : which == 1 ? entries.b(r, c) : entries.c(r, c);
          }
        });
  };
  for (const BlockRef& ref : layout().ownA(q))
    fill(m_a, ref.block, 0);
  for (const BlockRef& ref : layout().ownB(q))
    fill(m_b, ref.block, 1);
  fill(m_c, layout().ownC(q), 2);
}

void Gemm::multiplyProduct(int round, int product, int q, const DataWarehouse& oldDW,
                           DataWarehouse& newDW, ExecutionContext& exec) const {
  const GridCell cell = plan().cell(q);
  const gemm::GemmLayout& blocks = layout();
  const VarLabel* target = direct() ? m_c : m_partial;
  const int block = direct() ? blocks.ownC(q) : q;
  const bool first = round == 0 && product == 0;
  const BlockView<double> out = first ? newDW.allocateBlock<double>(target, block)
                                      : newDW.getModifiableBlock<double>(target, block);
  // Straight into C: C = beta C_old first, then every product adds alpha A B.
  const bool scaleOld = direct() && m_beta != 0.0;
  if (first && scaleOld) {
    const ConstBlockView<double> before = oldDW.getBlock<double>(m_c, block);
    const double beta = m_beta;
    exec.parallelFor(
        0, static_cast<int>(out.rows), KOKKOS_LAMBDA(const int i) {
          for (std::int64_t j = 0; j < out.cols; ++j)
            out(i, j) = beta * before(i, j);
        });
  }
  // Otherwise each A slice's rows start with its first product of round 0.
  const bool accumulate = scaleOld || round > 0 || product % plan().grid.pm != 0;
  const ConstBlockView<double> a = oldDW.getBlock<double>(m_a, blocks.aBlockOf(q, round, product));
  const ConstBlockView<double> b = oldDW.getBlock<double>(m_b, blocks.bBlockOf(q, round, product));
  const std::int64_t k0 = b.row0 - plan().inner(cell.l, round).begin;
  const std::int64_t row0 = a.row0 - plan().rows(cell.i).begin;
  gemm::multiply(m_local, exec, direct() ? m_alpha : 1.0, {a.data + k0, a.rows, b.rows, a.cols},
                 {b.data, b.rows, b.cols, b.cols},
                 {out.data + row0 * out.cols, a.rows, out.cols, out.cols}, accumulate);
}

void Gemm::reduce(int q, const DataWarehouse& oldDW, DataWarehouse& newDW,
                  ExecutionContext& exec) const {
  const int block = layout().ownC(q);
  const ConstBlockView<double> sum = newDW.getBlockSum<double>(m_partial, q);
  const ConstBlockView<double> before = oldDW.getBlock<double>(m_c, block);
  const BlockView<double> after = newDW.allocateBlock<double>(m_c, block);
  const double alpha = m_alpha, beta = m_beta;
  exec.parallelFor(
      0, static_cast<int>(after.rows), KOKKOS_LAMBDA(const int i) {
        for (std::int64_t j = 0; j < after.cols; ++j)
          after(i, j) = beta == 0.0 ? alpha * sum(i, j) : alpha * sum(i, j) + beta * before(i, j);
      });
}

void Gemm::carry(int q, const DataWarehouse& oldDW, DataWarehouse& newDW, ExecutionContext&) const {
  for (const BlockRef& ref : layout().ownA(q))
    newDW.transferBlock(oldDW, m_a, ref.block);
  for (const BlockRef& ref : layout().ownB(q))
    newDW.transferBlock(oldDW, m_b, ref.block);
}

// The reference: this rank's rows and columns of C_T from A and B made
// from their formulas and dgemm, panel by panel of the inner dimension so
// that the check holds no more than the plan's memory (verifyPanel).
void Gemm::check(int q, const DataWarehouse& oldDW, DataWarehouse& newDW, ExecutionContext&) const {
  const ConstBlockView<double> c = oldDW.getBlock<double>(m_c, layout().ownC(q));
  const std::int64_t k = plan().shape.k;
  const std::int64_t rows = c.rows, cols = c.cols;
  const std::int64_t panel = gemm::verifyPanel(plan(), rows, cols);
  std::vector<double> a(static_cast<std::size_t>(rows * panel)), absA(a.size());
  std::vector<double> b(static_cast<std::size_t>(panel * cols)), absB(b.size());
  std::vector<double> ab(static_cast<std::size_t>(rows * cols), 0.0), absAB(ab.size(), 0.0);
  for (std::int64_t l0 = 0; l0 < k && rows > 0 && cols > 0; l0 += panel) {
    const std::int64_t width = std::min(panel, k - l0);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t l = 0; l < width; ++l) {
        const auto e = static_cast<std::size_t>(i * width + l);
        a[e] = m_entries.a(c.row0 + i, l0 + l);
        absA[e] = std::abs(a[e]);
      }
    for (std::int64_t l = 0; l < width; ++l)
      for (std::int64_t j = 0; j < cols; ++j) {
        const auto e = static_cast<std::size_t>(l * cols + j);
        b[e] = m_entries.b(l0 + l, c.col0 + j);
        absB[e] = std::abs(b[e]);
      }
    const auto multiplyAdd = [&](const std::vector<double>& left, const std::vector<double>& right,
                                 std::vector<double>& out) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows),
                  static_cast<blasint>(cols), static_cast<blasint>(width), 1.0, left.data(),
                  static_cast<blasint>(width), right.data(), static_cast<blasint>(cols), 1.0,
                  out.data(), static_cast<blasint>(cols));
    };
    multiplyAdd(a, b, ab);
    multiplyAdd(absA, absB, absAB);
  }
  // C_T = alpha A B (1 + beta + ... + beta^(T-1)) + beta^T C_0.
  const int steps = oldDW.timestep();
  double series = 0.0, absSeries = 0.0, power = 1.0;
  for (int s = 0; s < steps; ++s) {
    series += power;
    absSeries += std::abs(power);
    power *= m_beta;
  }
  double maxError = 0.0, relative = 0.0;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto e = static_cast<std::size_t>(i * cols + j);
      const double c0 = m_entries.c(c.row0 + i, c.col0 + j);
      const double expected = m_alpha * ab[e] * series + power * c0;
      const double error = std::abs(c(i, j) - expected);
      const double scale = std::abs(m_alpha) * absAB[e] * absSeries + std::abs(power * c0);
      maxError = std::max(maxError, error);
      if (error > 0.0)
        relative = std::max(relative,
                            scale > 0.0 ? error / scale : std::numeric_limits<double>::infinity());
    }
  }
  newDW.put(MaxVariable<double>(maxError), m_maxError, q);
  newDW.put(MaxVariable<double>(relative), m_relativeError, q);
}

std::vector<std::pair<std::string, double>> Gemm::analysisResults(const DataWarehouse& dw) const {
  if (!m_verify) return {};
  const double bound =
      10.0 * static_cast<double>(plan().shape.k) * std::numeric_limits<double>::epsilon();
  return {{"max error", dw.getReduction<MaxVariable<double>>(m_maxError).get()},
          {"relative error", dw.getReduction<MaxVariable<double>>(m_relativeError).get()},
          {"error bound", bound},
          {"grid pm", plan().grid.pm},
          {"grid pn", plan().grid.pn},
          {"grid pk", plan().grid.pk},
          {"rounds", plan().rounds},
          {"model words max", static_cast<double>(plan().maxWordsReceived())}};
}

std::vector<std::string> Gemm::analysisReport(const DataWarehouse& dw,
                                              const RunTiming& timing) const {
  (void)dw;
  const gemm::Plan& p = plan();
  std::vector<std::string> lines;
  std::ostringstream grid;
  grid << "gemm: grid " << gemm::describe(p.grid) << " on " << p.usedRanks() << " of " << p.ranks
       << " ranks, " << p.rounds << " round(s)";
  lines.push_back(grid.str());
  if (timing.timesteps > 0) {
    const bool leaveOutFirst = timing.timesteps > 1;
    const int timed = leaveOutFirst ? timing.timesteps - 1 : timing.timesteps;
    const double seconds =
        (timing.wallSeconds - (leaveOutFirst ? timing.firstStepSeconds : 0.0)) / timed;
    const double flops = 2.0 * static_cast<double>(p.shape.m) * static_cast<double>(p.shape.n) *
                         static_cast<double>(p.shape.k);
    std::ostringstream rate;
    rate << "gemm: " << std::setprecision(4) << flops / seconds / 1e9 << " GFLOP/s, " << seconds
         << " s per multiply (" << timed << " multiplies timed, "
         << (leaveOutFirst ? "the first left out)" : "the first included)");
    lines.push_back(rate.str());
    // Words each rank received per multiplication, measured by the runtime.
    std::int64_t measuredMax = 0;
    std::vector<std::string> mismatches;
    for (std::size_t r = 0; r < timing.bytesReceived.size(); ++r) {
      const auto words =
          static_cast<std::int64_t>(timing.bytesReceived[r] / sizeof(double)) / timing.timesteps;
      measuredMax = std::max(measuredMax, words);
      const std::int64_t model = r < p.wordsReceived.size() ? p.wordsReceived[r] : 0;
      if (words != model) {
        mismatches.push_back("rank " + std::to_string(r) + " measured " + std::to_string(words) +
                             ", model " + std::to_string(model));
      }
    }
    std::ostringstream traffic;
    traffic << "gemm: words received per rank per multiply: measured max " << measuredMax
            << ", model max " << p.maxWordsReceived() << ", lower bound " << std::fixed
            << std::setprecision(0) << gemm::ioLowerBound(p.shape, p.ranks, m_memoryWords);
    lines.push_back(traffic.str());
    if (mismatches.empty()) {
      lines.push_back("gemm: the measured words equal the model on every rank");
    } else {
      std::string text = "gemm: measured words differ from the model:";
      for (const std::string& m : mismatches)
        text += " " + m + ";";
      lines.push_back(text);
    }
  }
  return lines;
}

}  // namespace tessera
