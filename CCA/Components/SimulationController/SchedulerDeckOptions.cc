#include "CCA/Components/SimulationController/SchedulerDeckOptions.h"

#include "Core/Parallel/TileChooser.h"
#include "Core/ProblemSpec/DeckError.h"

#include <sstream>
#include <string>

namespace tessera {

void checkExplicitTile(const std::optional<ProblemSpec>& spec, const TilingOptions& tiling,
                       const CompiledGraph& graph) {
  if (!tiling.tile || !spec) return;
  int ghost = 0;
  std::size_t bytesPerValue = 0;
  for (const auto& [label, layers] : graph.ghostLayers) {
    if (layers <= 0) continue;
    ghost = std::max(ghost, layers);
    bytesPerValue =
        bytesPerValue == 0 ? label->elementBytes() : std::min(bytesPerValue, label->elementBytes());
  }
  if (bytesPerValue == 0) return;  // no stencil reads ghost cells
  const StencilFootprint smallest{1, 1, ghost, bytesPerValue};
  const std::size_t needed = smallest.bytes(*tiling.tile);
  if (needed > tiling.scratchpadBytes) {
    std::ostringstream message;
    message << "the tile " << *tiling.tile << " needs at least " << needed
            << " bytes of scratch (one input with " << ghost << " ghost layers, one output), more "
            << "than scheduler.scratchpad_bytes " << tiling.scratchpadBytes;
    throw spec->errorAtValue("tile", message.str());
  }
}

SchedulerOptions schedulerOptions(const std::optional<ProblemSpec>& spec) {
  SchedulerOptions options;
  if (!spec) return options;
  options.tiling.scratchpadBytes = static_cast<std::size_t>(
      spec->get<int>("scratchpad_bytes", static_cast<int>(options.tiling.scratchpadBytes)));
  if (spec->has("tile")) {
    bool isAuto = false;
    try {
      isAuto = spec->get<std::string>("tile") == "auto";
    } catch (const DeckError&) {
      isAuto = false;
    }
    if (!isAuto) options.tiling.tile = spec->get<IntVector>("tile");
  }
  options.tiling.cacheBytes = static_cast<std::size_t>(
      spec->get<int>("cache_bytes", static_cast<int>(options.tiling.cacheBytes)));
  options.tileStencils = spec->get<bool>("tiling", options.tileStencils);
  options.tiling.streamingStores =
      spec->get<bool>("streaming_stores", options.tiling.streamingStores);
  options.watchdogSeconds = spec->get<double>("watchdog_seconds", options.watchdogSeconds);
  options.patchGroups = spec->get<bool>("patch_groups", options.patchGroups);
  const std::string controlThread = spec->get<std::string>("control_thread", "auto");
  options.controlThread = controlThread == "always"  ? SchedulerOptions::ControlThread::Always
                          : controlThread == "never" ? SchedulerOptions::ControlThread::Never
                                                     : SchedulerOptions::ControlThread::Auto;
  return options;
}

}  // namespace tessera
