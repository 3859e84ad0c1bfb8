package dev.cuckoofilter.bench.paper;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reproduces the evaluation of Fan et al., "Cuckoo Filter: Practically Better Than Bloom" (CoNEXT 2014):
 * one CSV per table and figure, one PNG per figure and for Tables 2 and 3, {@code comparison.csv/.md} (each
 * number of the paper beside ours) and {@code environment.csv} (machine, JVM, sizes, run time) in the output
 * directory.
 *
 * <pre>
 * java -Xmx6g -cp benchmarks/target/benchmarks.jar dev.cuckoofilter.bench.paper.PaperReproduction \
 *     [--out docs/paper] [--quick] [--only load,fig3,fig4,table3,fig5,occupancy,machine] [--plot-only load,table3]
 * </pre>
 *
 * <p>{@code --plot-only} measures nothing: it redraws the plots that are drawn from CSV files (Table 2, Table 3)
 * from the files already in the output directory, through the same code as a run, and writes nothing else.
 */
public final class PaperReproduction {
  private PaperReproduction() {}

  /** In run order: the timed experiments after the untimed ones that need no warm machine. */
  static List<Experiment> experiments() {
    return List.of(new MachineProbe(), new LoadFactorExperiment(), new SpaceVsFprExperiment(),
        new SpaceBoundsExperiment(), new Table3Experiment(), new LookupMixExperiment(), new OccupancyExperiment());
  }

  public static void main(String[] args) throws IOException {
    System.setProperty("java.awt.headless", "true");
    run(args);
  }

  /** Runs the experiments the arguments select; returns the output directory. */
  static Path run(String[] args) throws IOException {
    Path out = Paths.get("docs/paper");
    Scale scale = Scale.FULL;
    Set<String> only = null;
    Set<String> plotOnly = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Paths.get(args[++i]);
        case "--quick" -> scale = Scale.QUICK;
        case "--only" -> only = Set.of(args[++i].split(","));
        case "--plot-only" -> plotOnly = Set.of(args[++i].split(","));
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "; options: --out DIR, --quick, "
            + "--only " + experiments().stream().map(Experiment::id).collect(Collectors.joining(","))
            + ", --plot-only load,table3");
      }
    }
    Files.createDirectories(out);
    Run run = new Run(scale, out);
    if (plotOnly != null) {
      plotFromCsv(run, plotOnly);
      return out;
    }
    Csv environment = environment(scale, args);
    long start = System.nanoTime();
    for (Experiment e : experiments()) {
      if (only != null && !only.contains(e.id())) {
        continue;
      }
      Run.log("%s (%s)", e.title(), e.id());
      long t0 = System.nanoTime();
      e.run(run);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Run.log("%s: %.0f s", e.id(), seconds);
      environment.row("seconds: " + e.id(), Csv.significant(seconds, 3));
    }
    double total = (System.nanoTime() - start) / 1e9;
    environment.row("seconds: total", Csv.significant(total, 3));
    environment.row("load average at the end (1, 5, 15 min)", loadAverage());
    environment.write(out.resolve("environment.csv"));
    run.comparison.write(out);
    Run.log("done in %.0f s; results in %s", total, out.toAbsolutePath());
    return out;
  }

  /** {@code --plot-only}: the selected experiments' plots from the CSV files in the output directory. */
  private static void plotFromCsv(Run run, Set<String> ids) {
    Set<String> known = experiments().stream().map(Experiment::id).collect(Collectors.toSet());
    for (String id : ids) {
      if (!known.contains(id)) {
        throw new IllegalArgumentException("unknown experiment " + id + " in --plot-only");
      }
    }
    for (Experiment e : experiments()) {
      if (ids.contains(e.id())) {
        Run.log("%s (%s): plots from the CSV files", e.title(), e.id());
        if (!e.plotFromCsv(run)) {
          throw new IllegalArgumentException(e.id() + " draws its plots from measurements only; run it with --only");
        }
      }
    }
  }

  private static Csv environment(Scale scale, String[] args) {
    Runtime rt = Runtime.getRuntime();
    List<String> collectors = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      collectors.add(gc.getName());
    }
    return new Csv("key", "value")
        .row("date", ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS))
        .row("arguments", String.join(" ", args))
        .row("cpu", firstMatch(Path.of("/proc/cpuinfo"), "model name"))
        .row("logical cpus", rt.availableProcessors())
        .row("last-level cache", read(Path.of("/sys/devices/system/cpu/cpu0/cache/index3/size")))
        .row("memory", firstMatch(Path.of("/proc/meminfo"), "MemTotal"))
        .row("os", System.getProperty("os.name") + " " + System.getProperty("os.version"))
        .row("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
        .row("jvm arguments", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .row("max heap MiB", rt.maxMemory() >> 20)
        .row("garbage collectors", String.join(", ", collectors))
        .row("load average at the start (1, 5, 15 min)", loadAverage())
        .row("scale", scale.name())
        .row("sizes", scale.toString());
  }

  /** Other processes compete for the 2 cores: the throughput numbers are only as good as this is low. */
  private static String loadAverage() {
    String[] fields = read(Path.of("/proc/loadavg")).split(" ");
    return fields.length < 3 ? "unknown" : fields[0] + " " + fields[1] + " " + fields[2];
  }

  /** The value of the first "key : value" line of a Linux /proc file, or "unknown". */
  private static String firstMatch(Path file, String key) {
    return Arrays.stream(read(file).split("\n")).filter(l -> l.startsWith(key)).findFirst()
        .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
