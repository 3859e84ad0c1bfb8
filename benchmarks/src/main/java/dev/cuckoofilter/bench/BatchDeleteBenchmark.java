package dev.cuckoofilter.bench;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Delete until empty with this project's batched API ({@code removeAll}), same keys and order as {@link DeleteBenchmark}. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 4)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class BatchDeleteBenchmark {
  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF"})
  public FilterKind filter;

  long[] members;
  long[] deleteOrder;
  CuckooFilter f;

  @Setup(Level.Trial)
  public void keys() {
    filter.cuckooFilter(1, "BatchDeleteBenchmark");
    DeleteBenchmark single = new DeleteBenchmark();
    single.n = n;
    single.filter = filter;
    single.keys();
    members = single.members;
    deleteOrder = single.deleteOrder;
  }

  @Setup(Level.Iteration)
  public void fill() {
    f = filter.cuckooFilter(n, "BatchDeleteBenchmark");
    f.addAll(members);
  }

  @Benchmark
  public int deleteAllBatch() {
    return f.removeAll(deleteOrder);
  }
}
