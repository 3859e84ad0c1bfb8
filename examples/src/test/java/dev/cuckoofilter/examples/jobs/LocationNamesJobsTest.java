package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import org.junit.jupiter.api.Test;

/**
 * Filter locations named with characters that URIs or Hadoop globs treat specially work with every job, and a
 * location spelled as a plain path, as a {@code file:} URI or with a trailing slash is one location.
 */
class LocationNamesJobsTest extends ShopDataJobTest {
  /**
   * prune-join checked that --output does not overlap the location by globbing the location's path: a location
   * named {@code customers [2026}, {@code {eu} or with a backslash, which build-filter and update-filter use
   * (a location is no pattern), failed with "IOException: Illegal file pattern", exit code 1 and a stack trace.
   */
  @Test
  void locationsNamedWithGlobCharactersArePrunedWith() throws Exception {
    String location = dir.resolve("filters").resolve("customers [2026 {eu a\\b %41 #1").toString();
    Result built = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id", "--location", location + "/");
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    Result updated = inProcess(new UpdateFilterJob(), "--location", "file:" + location, "--before", customers,
        "--after", customers);
    assertEquals(ExitCodes.OK, updated.exitCode(), updated.describe());
    assertEquals(2, FilterStore.open(location, spark).readLatest().version().version());

    String joined = dir.resolve("joined").toString();
    Result pruned = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "customer_id",
        "--join-with", customers, "--join-keys", "id", "--output", joined);
    assertEquals(ExitCodes.OK, pruned.exitCode(), pruned.describe());
    assertEquals(1000, spark.read().parquet(joined).count(), "orders of the 500 customers");
  }
}
