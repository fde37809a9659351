#include "Core/ProblemSpec/DeckSchema.h"

namespace tessera {

namespace {

using VT = ValueType;

Schema metaSchema() {
  return Schema("Free-form facts about the run")
      .optional("title", VT::String, "a one-line description of the run");
}

Schema componentSchema() {
  return Schema("The simulation component to run")
      .required("name", VT::String, "the component's registered name, e.g. burgers");
}

Schema timeSchema() {
  return Schema("Simulated time and time-step control")
      .required("max_time", VT::Double, "stop when simulated time reaches this")
      .range("max_time", 0)
      .optional("init_time", VT::Double, "simulated time at the first step")
      .range("init_time", 0)
      .optional("max_timesteps", VT::Int, "stop after this many steps")
      .range("max_timesteps", 0)
      .optional("delt_min", VT::Double,
                "lower limit on the time step (raised to it, with a warning)")
      .greaterThan("delt_min", 0)
      .optional("delt_max", VT::Double, "upper limit on the time step")
      .greaterThan("delt_max", 0)
      .optional("delt_init", VT::Double, "upper limit on the first time step")
      .greaterThan("delt_init", 0)
      .optional("timestep_multiplier", VT::Double, "safety factor on the stable step")
      .greaterThan("timestep_multiplier", 0, 1e6);
}

Schema levelSchema() {
  return Schema("The single level's domain and layout")
      .required("lower", VT::Vector3, "lower corner of the domain")
      .required("upper", VT::Vector3, "upper corner of the domain")
      .required("resolution", VT::IntVector, "number of cells along each axis")
      .range("resolution", 1)
      .optional("patches", VT::IntVector, "number of patches along each axis")
      .range("patches", 1)
      .optional("extra_cells", VT::IntVector, "boundary cells outside the domain on each side")
      .range("extra_cells", 0, 8)
      .optional("periodic", VT::BoolVector3, "periodicity along each axis");
}

Schema amrSchema() {
  const Schema region =
      Schema("A fixed refined region: a box of the cells of the level below")
          .required("level", VT::Int, "the level the region belongs to (1 or more)")
          .range("level", 1)
          .required("low", VT::IntVector, "first cell of the box, in the level below's cells")
          .required("high", VT::IntVector, "one past the last cell of the box (half-open)")
          .optional("patches", VT::IntVector, "patches along each axis (default from max_patch_size)")
          .range("patches", 1);
  return Schema("Refined levels (docs/amr.md)")
      .optional("max_levels", VT::Int, "levels in all, level 0 included")
      .range("max_levels", 1, 8)
      .optional("refinement_ratio", VT::Int, "cells of a level per cell of the one below, per axis: 2 or 4")
      .optional("nesting_buffer", VT::Int,
                "cells of the level below kept between a finer level and its edge (default 1)")
      .range("nesting_buffer", 0)
      .optional("max_patch_size", VT::Int,
                "cells per axis of a refined level's patches at most (default level 0's)")
      .range("max_patch_size", 1)
      .optional("buffer", VT::Int,
                "cells around each tagged cell that its finer level covers too (default 1)")
      .range("buffer", 0)
      .optional("regrid_interval", VT::Int,
                "timesteps between regrids: the component tags again and the levels follow "
                "(tagged levels only; default: never)")
      .range("regrid_interval", 1)
      .optional("subcycle", VT::Bool,
                "each level steps with its own dt, refinement_ratio substeps per step of the "
                "level below (default false: the levels step together)")
      .optional("reflux", VT::Bool,
                "correct the coarse cells next to a finer level by its fluxes, for components "
                "that declare them (default true)")
      .sectionMap("regions", region);
}

Schema gridSchema() {
  return Schema("The computational grid").section("level", levelSchema(), true);
}

Schema schedulerSchema() {
  return Schema("How tasks are run")
      .optional("type", VT::String, "host, sync or async")
      .oneOf("type", {"host", "sync", "async"})
      .optional("rebuild_every_timestep", VT::Bool, "recompile the task graph each step")
      .optional("patch_groups", VT::Bool,
                "share storage among each rank's box-shaped groups of patches, and run "
                "per-group tasks once per group (default true)")
      .optional("device_threads", VT::Int, "threads feeding the device")
      .range("device_threads", 1)
      .optional("scratchpad_bytes", VT::Int, "per-team scratch memory")
      .range("scratchpad_bytes", 64)
      .optional("tiling", VT::Bool,
                "tile stencils: cache blocks walked in place on a host execution space (every "
                "mode), staged in scratch on a device (sync and async; default true)")
      .optional("streaming_stores", VT::Bool,
                "let kernels write arrays they write whole with streaming stores on the "
                "host, bypassing the caches (default false)")
      .optional("cache_bytes", VT::Int, "the per-core cache a host tile fits (default: L2)")
      .range("cache_bytes", 64)
      .optional("tile", VT::TileSpec, "kernel tile size, or auto")
      .range("tile", 1)
      .optional("control_thread", VT::String,
                "async: let a control thread progress MPI and host tasks while kernels run "
                "(auto: only when it has a core of its own)")
      .oneOf("control_thread", {"auto", "always", "never"})
      .optional("watchdog_seconds", VT::Double, "report a task stuck longer than this")
      .greaterThan("watchdog_seconds", 0);
}

Schema loadBalancerSchema() {
  return Schema("How patches are assigned to ranks")
      .optional("type", VT::String, "sfc or round_robin")
      .oneOf("type", {"sfc", "round_robin"})
      .optional("curve", VT::String, "space-filling curve for sfc")
      .oneOf("curve", {"hilbert", "morton"})
      .section("dynamic",
               Schema("Rebalancing while the run goes (docs/load-balancing.md)")
                   .required("interval", VT::Int, "timesteps between checks of the imbalance")
                   .range("interval", 1)
                   .optional("imbalance_threshold", VT::Double,
                             "rebalance when the measured imbalance (busiest rank's time in "
                             "tasks over the mean, minus 1) exceeds it (default 0.1)")
                   .greaterThan("imbalance_threshold", 0.0, 1.0)
                   .optional("strategy", VT::String,
                             "how patches are placed by cost: sfc (contiguous pieces of the "
                             "curve, default) or knapsack (heaviest first onto the least loaded)")
                   .oneOf("strategy", {"sfc", "knapsack"})
                   .optional("smoothing", VT::Double,
                             "weight of the newest measurement in each patch's forecast cost "
                             "(default 0.5)")
                   .greaterThan("smoothing", 0.0, 1.0));
}

Schema outputSchema() {
  return Schema("Data archive output")
      .optional("dir", VT::String, "archive directory")
      .optional("interval", VT::Double, "simulated time between outputs")
      .greaterThan("interval", 0)
      .optional("timestep_interval", VT::Int, "steps between outputs")
      .range("timestep_interval", 1)
      .optional("save", VT::StringList, "variable labels to save")
      .optional("output_initial", VT::Bool, "write the initial state")
      .optional("output_last", VT::Bool, "write the final state");
}

Schema checkpointSchema() {
  return Schema("Restart checkpoints")
      .optional("interval", VT::Double, "simulated time between checkpoints")
      .greaterThan("interval", 0)
      .optional("timestep_interval", VT::Int, "steps between checkpoints")
      .range("timestep_interval", 1)
      .optional("walltime_interval", VT::Double, "wall-clock seconds between checkpoints")
      .greaterThan("walltime_interval", 0)
      .optional("cycle", VT::Int, "number of checkpoints kept")
      .range("cycle", 1);
}

}  // namespace

Schema coreDeckSchema(bool gridRequired) {
  return Schema("A Tessera input deck")
      .section("meta", metaSchema())
      .section("component", componentSchema(), true)
      .section("time", timeSchema(), true)
      .section("grid", gridSchema(), gridRequired)
      .section("amr", amrSchema())
      .section("scheduler", schedulerSchema())
      .section("load_balancer", loadBalancerSchema())
      .section("output", outputSchema())
      .section("checkpoint", checkpointSchema());
}

}  // namespace tessera
