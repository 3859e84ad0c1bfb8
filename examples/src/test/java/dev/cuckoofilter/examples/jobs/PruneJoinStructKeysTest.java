package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * prune-join with a struct key column: Spark's join matches structs with null fields ({@code struct(1, null) =
 * struct(1, null)} is true), while the stored filter leaves out such keys (a struct with a null field is a null key):
 * rows of --input whose struct key has a null field must be kept, or the pruned join loses their matches.
 */
class PruneJoinStructKeysTest extends SparkJobTest {
  static String customers;
  static String orders;
  static String location;

  @BeforeAll
  static void writeData() {
    customers = dir.resolve("customers").toString();
    // 50 of the 200 customers have a null code: 10 in each region
    spark.sql("SELECT named_struct('region', CAST(id % 5 AS INT), 'code', IF(id % 4 = 0, NULL, CAST(id AS INT))) AS k, "
        + "concat('c-', id) AS name FROM range(0, 200)").write().parquet(customers);
    orders = dir.resolve("orders").toString();
    spark.sql("SELECT named_struct('region', CAST(id % 5 AS INT), 'code', IF(id % 3 = 0, NULL, CAST(id % 400 AS INT))) "
        + "AS k, id AS order_id FROM range(0, 2000)").write().parquet(orders);
    location = location("by-struct");
    Result built = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "k", "--location", location,
        "--fpp", "0.001");
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
  }

  private static Dataset<Row> unpruned(String joinType) {
    return spark.read().parquet(orders).join(spark.read().parquet(customers), seq(List.of("k")), joinType);
  }

  private static void assertSameRows(Dataset<Row> expected, Dataset<Row> actual) {
    Column[] columns = Arrays.stream(expected.columns()).map(functions::col).toArray(Column[]::new);
    Dataset<Row> a = actual.select(columns);
    assertEquals(expected.count(), a.count());
    assertEquals(0, expected.exceptAll(a).count(), "rows of the unpruned join missing from the pruned one");
    assertEquals(0, a.exceptAll(expected).count(), "rows of the pruned join not in the unpruned one");
  }

  @Test
  void anInnerJoinOnAStructKeyKeepsTheMatchesOfNullFields() {
    String joined = dir.resolve("inner").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--join-with", customers,
        "--output", joined);

    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    Dataset<Row> expected = unpruned("inner");
    // 667 orders of a null code match the 10 customers of their region with a null code; 500 others match one
    assertEquals(7170, expected.count());
    assertSameRows(expected, spark.read().parquet(joined));
  }

  @Test
  void aRightOuterJoinOnAStructKeyKeepsTheMatchesOfNullFields() {
    String joined = dir.resolve("right-outer").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--join-with", customers,
        "--join-type", "right_outer", "--output", joined);

    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertSameRows(unpruned("right_outer"), spark.read().parquet(joined));
  }
}
