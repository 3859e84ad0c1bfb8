package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;

/**
 * --keys and --join-keys are comma-separated lists, written as people write lists ({@code --keys "id, name"}): each
 * column is taken without the blanks around it. The space was kept, and the column " name" looked up: build-filter,
 * prune-join and cuckoo build refused a key written so as an unknown column. Empty columns are refused in
 * {@code CommandLinesTest}.
 */
class CommaSeparatedKeysTest extends ShopDataJobTest {
  private static List<String> keyNames(String location) throws IOException {
    return FilterStore.open(location, spark).readLatest().metadata().keyColumns().stream().map(StructField::name)
        .toList();
  }

  @Test
  void buildFilterTakesKeysWithoutTheBlanksAroundThem() throws IOException {
    Result r = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id, name", "--location",
        location("spaced-job"));
    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertEquals(List.of("id", "name"), keyNames(location("spaced-job")));
  }

  @Test
  void cuckooBuildTakesKeysWithoutTheBlanksAroundThem() throws IOException {
    Result r = inProcess(new CuckooCli(), "build", location("spaced-tool"), "--input", customers, "--keys",
        " id ,\tname ");
    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertEquals(List.of("id", "name"), keyNames(location("spaced-tool")));
  }

  @Test
  void pruneJoinTakesKeysAndJoinKeysWithoutTheBlanksAroundThem() throws IOException {
    String location = location("spaced-join");
    Result built = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "id,name", "--location", location);
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    String named = dir.resolve("named-orders").toString();
    spark.read().parquet(orders).selectExpr("order_id", "customer_id", "concat('c-', customer_id) AS customer_name")
        .write().parquet(named);
    String joined = dir.resolve("spaced-joined").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", named, "--keys",
        "customer_id, customer_name", "--join-with", customers, "--join-keys", "id , name", "--output", joined);

    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    // orders of customers 0 to 499 (customer_id = order_id % 1000): 2 of each
    assertEquals(1000, spark.read().parquet(joined).count());
    assertFalse(Files.exists(Path.of(joined, "_temporary")));
  }

  /** A column whose name starts with a blank (a CSV header "region, id") is named quoted, as any odd name. */
  @Test
  void aColumnNamedWithABlankIsNamedQuoted() throws IOException {
    String spaced = dir.resolve("spaced-names").toString();
    spark.read().parquet(customers).selectExpr("name AS region", "id AS ` id`").write().parquet(spaced);
    Result r = inProcess(new BuildFilterJob(), "--input", spaced, "--keys", "region, ` id`", "--location",
        location("spaced-names"));
    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertEquals(List.of("region", " id"), keyNames(location("spaced-names")));
  }
}
