package dev.cuckoofilter.bench;

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

/**
 * Lookup throughput of a filter holding {@code n} random keys, for negative (absent keys), positive
 * (present keys) and 50-50 workloads, one {@code mightContain} call per key.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms10g", "-Xmx10g", "-XX:+UseParallelGC"})
public class LookupBenchmark {
  static final int QUERIES = 1 << 22;

  @Param({"1000000", "64000000"})
  public int n;

  @Param({"CF", "SS_CF", "SPARK_BLOOM", "GUAVA_BLOOM", "PARQUET_BLOOM", "FASTFILTER_CUCKOO16", "CUCKOOFILTER4J"})
  public FilterKind filter;

  @Param({"negative", "positive", "mixed"})
  public String workload;

  BenchFilter f;
  long[] queries;

  @Setup
  public void setup() {
    long[] members = Keys.members(n);
    f = filter.create(n);
    for (long k : members) {
      f.add(k);
    }
    long[] nonMembers = Keys.nonMembers(QUERIES);
    switch (workload) {
      case "negative" -> queries = nonMembers;
      case "positive" -> queries = Keys.shuffled(members, QUERIES);
      case "mixed" -> queries = Keys.mixed(members, nonMembers, QUERIES);
      default -> throw new IllegalArgumentException("workload " + workload);
    }
  }

  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public int lookup() {
    BenchFilter filter = f;
    int found = 0;
    for (long key : queries) {
      found += filter.mightContain(key) ? 1 : 0;
    }
    return found;
  }
}
