package dev.cuckoofilter.bench;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Construction to capacity with this project's batched API ({@code addAll}), same keys as {@link BuildBenchmark}. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 4)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class BatchBuildBenchmark {
  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF"})
  public FilterKind filter;

  long[] members;

  @Setup
  public void setup() {
    filter.cuckooFilter(1, "BatchBuildBenchmark");
    members = Keys.members(n);
  }

  @Benchmark
  public CuckooFilter buildBatch() {
    CuckooFilter f = filter.cuckooFilter(n, "BatchBuildBenchmark");
    f.addAll(members);
    return f;
  }
}
