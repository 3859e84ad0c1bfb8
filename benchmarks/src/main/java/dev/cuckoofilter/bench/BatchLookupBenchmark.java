package dev.cuckoofilter.bench;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Lookup throughput of this project's batched API ({@code mightContainAll}), same workloads as {@link LookupBenchmark}. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class BatchLookupBenchmark {
  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF"})
  public FilterKind filter;

  @Param({"negative", "positive", "mixed"})
  public String workload;

  CuckooFilter f;
  long[] queries;
  boolean[] results;

  @Setup
  public void setup() {
    LookupBenchmark single = new LookupBenchmark();
    single.n = n;
    single.filter = filter;
    single.workload = workload;
    single.setup();
    f = ((FilterKind.Ours) single.f).filter;
    queries = single.queries;
    results = new boolean[queries.length];
  }

  @Benchmark
  @OperationsPerInvocation(LookupBenchmark.QUERIES)
  public int lookupBatch() {
    return f.mightContainAll(queries, results);
  }
}
