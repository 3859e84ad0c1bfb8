package dev.cuckoofilter.bench;

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

/**
 * Delete until empty (Fig. 8 of the paper): one invocation deletes every key of a full filter, in
 * random order. The rate is {@code n} divided by the reported time. Filters are rebuilt, untimed,
 * before each iteration.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 4)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class DeleteBenchmark {
  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF", "CUCKOOFILTER4J"})
  public FilterKind filter;

  long[] members;
  long[] deleteOrder;
  BenchFilter f;

  @Setup(Level.Trial)
  public void keys() {
    // Fail before generating and adding n keys, not after the first fill.
    if (!filter.deletes()) {
      throw new IllegalArgumentException(
          "filter=" + filter + " cannot delete: DeleteBenchmark takes "
              + java.util.Arrays.stream(FilterKind.values()).filter(FilterKind::deletes).toList());
    }
    members = Keys.members(n);
    deleteOrder = members.clone();
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    for (int i = deleteOrder.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      long t = deleteOrder[i];
      deleteOrder[i] = deleteOrder[j];
      deleteOrder[j] = t;
    }
  }

  @Setup(Level.Iteration)
  public void fill() {
    f = filter.create(n);
    for (long key : members) {
      f.add(key);
    }
  }

  @Benchmark
  public int deleteAll() {
    BenchFilter filter = f;
    int removed = 0;
    for (long key : deleteOrder) {
      removed += filter.remove(key) ? 1 : 0;
    }
    return removed;
  }
}
