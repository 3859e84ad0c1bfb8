package dev.cuckoofilter.bench;

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

/**
 * Construction to capacity: one invocation creates a filter sized for {@code n} keys and inserts all
 * of them. The rate is {@code n} divided by the reported time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 4)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class BuildBenchmark {
  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF", "SPARK_BLOOM", "GUAVA_BLOOM", "PARQUET_BLOOM", "FASTFILTER_CUCKOO16", "CUCKOOFILTER4J"})
  public FilterKind filter;

  long[] members;

  @Setup
  public void setup() {
    members = Keys.members(n);
  }

  @Benchmark
  public BenchFilter build() {
    BenchFilter f = filter.create(n);
    for (long key : members) {
      f.add(key);
    }
    return f;
  }
}
