package dev.cuckoofilter.sparkbench;

import dev.cuckoofilter.spark.optimizer.RuntimeFilterConf;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * TPC-H-like queries over a generated dataset, each run with Spark's defaults and with the cuckoo
 * runtime filter rule on: time per query and a check that the results are identical. The data follows
 * TPC-H's schema and cardinalities (scale factor 1: 6M lineitems, 1.5M orders, 150K customers) with
 * uniform random values; it is not dbgen's data, and the queries keep the joins and filters of
 * TPC-H Q3, Q5, Q10, Q12, Q14 and Q19 with simplified expressions.
 *
 * <pre>
 * mvn -B -ntp -pl spark-benchmarks exec:exec -Dbench.main=dev.cuckoofilter.sparkbench.TpchLikeBenchmark -Dbench.args="--scale 1"
 * </pre>
 */
public final class TpchLikeBenchmark {
  private TpchLikeBenchmark() {}

  static final Map<String, String> QUERIES = new LinkedHashMap<>();

  static {
    QUERIES.put("Q3 shipping priority", "SELECT l.l_orderkey, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue, "
        + "o.o_orderdate FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey JOIN lineitem l ON l.l_orderkey = "
        + "o.o_orderkey WHERE c.c_mktsegment = 'BUILDING' AND o.o_orderdate < DATE'1995-03-15' AND l.l_shipdate > "
        + "DATE'1995-03-15' GROUP BY l.l_orderkey, o.o_orderdate ORDER BY revenue DESC, o.o_orderdate, l.l_orderkey LIMIT 20");
    QUERIES.put("Q5 local supplier volume", "SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue "
        + "FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey JOIN lineitem l ON l.l_orderkey = o.o_orderkey "
        + "JOIN supplier s ON l.l_suppkey = s.s_suppkey AND c.c_nationkey = s.s_nationkey JOIN nation n ON "
        + "s.s_nationkey = n.n_nationkey JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'ASIA' AND "
        + "o.o_orderdate >= DATE'1994-01-01' AND o.o_orderdate < DATE'1995-01-01' GROUP BY n.n_name ORDER BY revenue DESC");
    QUERIES.put("Q10 returned items", "SELECT c.c_custkey, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue, "
        + "n.n_name FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey JOIN lineitem l ON l.l_orderkey = "
        + "o.o_orderkey JOIN nation n ON c.c_nationkey = n.n_nationkey WHERE o.o_orderdate >= DATE'1993-10-01' AND "
        + "o.o_orderdate < DATE'1994-01-01' AND l.l_returnflag = 'R' GROUP BY c.c_custkey, n.n_name "
        + "ORDER BY revenue DESC, c.c_custkey LIMIT 20");
    QUERIES.put("Q12 shipping modes", "SELECT l.l_shipmode, sum(CASE WHEN o.o_orderpriority IN ('1-URGENT', '2-HIGH') "
        + "THEN 1 ELSE 0 END) AS high, sum(CASE WHEN o.o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) "
        + "AS low FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey WHERE l.l_shipmode IN ('MAIL', 'SHIP') "
        + "AND l.l_commitdate < l.l_receiptdate AND l.l_shipdate < l.l_commitdate AND l.l_receiptdate >= "
        + "DATE'1994-01-01' AND l.l_receiptdate < DATE'1995-01-01' GROUP BY l.l_shipmode ORDER BY l.l_shipmode");
    QUERIES.put("Q14 promotion effect", "SELECT sum(CASE WHEN p.p_type LIKE 'PROMO%' THEN l.l_extendedprice * "
        + "(1 - l.l_discount) ELSE 0 END) AS promo, sum(l.l_extendedprice * (1 - l.l_discount)) AS total FROM lineitem l "
        + "JOIN part p ON l.l_partkey = p.p_partkey WHERE l.l_shipdate >= DATE'1995-09-01' AND l.l_shipdate < "
        + "DATE'1995-10-01'");
    QUERIES.put("Q19 discounted revenue", "SELECT sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue FROM lineitem l "
        + "JOIN part p ON p.p_partkey = l.l_partkey WHERE p.p_brand = 'Brand#12' AND p.p_container IN ('SM CASE', "
        + "'SM BOX', 'SM PACK', 'SM PKG') AND l.l_quantity BETWEEN 1 AND 11 AND p.p_size BETWEEN 1 AND 5");
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> opts = Args.parse(args, Map.of("--scale", "1", "--data", "/tmp/spark-cuckoo-tpch",
        "--runs", "5", "--out", ""), "TpchLikeBenchmark: TPC-H-like queries with and without the cuckoo rule");
    double scale = Double.parseDouble(opts.get("--scale"));
    int runs = Integer.parseInt(opts.get("--runs"));
    SparkSession spark = SparkSession.builder().master("local[2]").appName("tpch-like-benchmark")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.extensions", "dev.cuckoofilter.spark.CuckooFilterExtensions")
        .config("spark.ui.enabled", "false").getOrCreate();
    String dir = opts.get("--data") + "/sf" + opts.get("--scale");
    generate(spark, dir, scale);
    for (String t : List.of("lineitem", "orders", "customer", "part", "supplier", "nation", "region")) {
      spark.read().parquet(dir + "/" + t).createOrReplaceTempView(t);
    }
    List<String> csv = new ArrayList<>(List.of("query,spark_defaults_s,with_cuckoo_rule_s,speedup,filters_injected,same_result"));
    System.out.printf("%-26s %12s %12s %8s %8s %s%n", "query", "defaults s", "cuckoo s", "speedup", "filters", "same result");
    for (Map.Entry<String, String> q : QUERIES.entrySet()) {
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      List<String> expected = rows(spark.sql(q.getValue()).collectAsList());
      spark.conf().set(RuntimeFilterConf.ENABLED, "true");
      String plan = spark.sql(q.getValue()).queryExecution().optimizedPlan().toString();
      int filters = plan.split("cuckoo_might_contain", -1).length - 1;
      List<String> actual = rows(spark.sql(q.getValue()).collectAsList());
      boolean same = expected.equals(actual);
      // Runs alternate between the rule off and on, so that warm-up and drift affect both alike.
      double[] offTimes = new double[runs];
      double[] onTimes = new double[runs];
      for (int r = 0; r < runs; r++) {
        spark.conf().set(RuntimeFilterConf.ENABLED, "false");
        offTimes[r] = seconds(spark, q.getValue());
        spark.conf().set(RuntimeFilterConf.ENABLED, "true");
        onTimes[r] = seconds(spark, q.getValue());
      }
      double off = median(offTimes);
      double on = median(onTimes);
      System.out.printf(Locale.ROOT, "%-26s %12.2f %12.2f %7.2fx %8d %s%n", q.getKey(), off, on, off / on, filters, same);
      csv.add(String.format(Locale.ROOT, "%s,%.3f,%.3f,%.3f,%d,%b", q.getKey(), off, on, off / on, filters, same));
      if (!same) {
        throw new IllegalStateException(q.getKey() + ": results differ with the rule on");
      }
    }
    spark.conf().unset(RuntimeFilterConf.ENABLED);
    if (!opts.get("--out").isEmpty()) {
      Files.createDirectories(Path.of(opts.get("--out")).toAbsolutePath().getParent());
      Files.write(Path.of(opts.get("--out")), csv);
    }
    spark.stop();
  }

  private static double seconds(SparkSession spark, String sql) {
    long start = System.nanoTime();
    spark.sql(sql).collectAsList();
    return (System.nanoTime() - start) / 1e9;
  }

  private static double median(double[] times) {
    double[] t = times.clone();
    Arrays.sort(t);
    return t[t.length / 2];
  }

  private static List<String> rows(List<Row> rows) {
    List<String> out = new ArrayList<>();
    for (Row r : rows) {
      out.add(r.toString());
    }
    return out;
  }

  /** Generates the tables as Parquet once per scale factor. */
  static void generate(SparkSession spark, String dir, double scale) {
    if (new File(dir + "/lineitem/_SUCCESS").exists()) {
      return;
    }
    long customers = (long) (150_000 * scale);
    long orders = customers * 10;
    long parts = (long) (200_000 * scale);
    long suppliers = Math.max(100, (long) (10_000 * scale));
    System.out.printf("generating TPC-H-like tables at scale %.2f in %s...%n", scale, dir);
    String[] segments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"};
    String[] priorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
    String[] modes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
    String[] containers = {"SM CASE", "SM BOX", "SM PACK", "SM PKG", "MED BAG", "MED BOX", "LG CASE", "LG BOX", "JUMBO PACK", "WRAP CASE"};
    String[] regions = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
    spark.range(0, 5).selectExpr("id AS r_regionkey", pick(regions, "id") + " AS r_name")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/region");
    spark.range(0, 25).selectExpr("id AS n_nationkey", "concat('NATION', id) AS n_name", "id % 5 AS n_regionkey")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/nation");
    spark.range(1, suppliers + 1).selectExpr("id AS s_suppkey", "pmod(xxhash64(id, 11), 25) AS s_nationkey",
        "concat('Supplier#', id) AS s_name").write().mode(SaveMode.Overwrite).parquet(dir + "/supplier");
    spark.range(1, customers + 1).selectExpr("id AS c_custkey", "pmod(xxhash64(id, 12), 25) AS c_nationkey",
        pick(segments, "pmod(xxhash64(id, 13), 5)") + " AS c_mktsegment", "concat('Customer#', id) AS c_name")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/customer");
    spark.range(1, parts + 1).selectExpr("id AS p_partkey", "concat('Brand#', 1 + pmod(xxhash64(id, 14), 5), "
        + "1 + pmod(xxhash64(id, 15), 5)) AS p_brand", "CASE WHEN pmod(xxhash64(id, 16), 6) = 0 THEN concat('PROMO ', id % 7) "
        + "ELSE concat('STANDARD ', id % 7) END AS p_type", "CAST(1 + pmod(xxhash64(id, 17), 50) AS INT) AS p_size",
        pick(containers, "pmod(xxhash64(id, 18), 10)") + " AS p_container")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/part");
    spark.range(1, orders + 1, 1, 8).selectExpr("id AS o_orderkey", "1 + pmod(xxhash64(id, 19), " + customers + ") AS o_custkey",
        "date_add(DATE'1992-01-01', CAST(pmod(xxhash64(id, 20), 2400) AS INT)) AS o_orderdate",
        pick(priorities, "pmod(xxhash64(id, 21), 5)") + " AS o_orderpriority")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/orders");
    spark.range(0, orders * 4, 1, 16).selectExpr("1 + id DIV 4 AS l_orderkey",
        "1 + pmod(xxhash64(id, 22), " + parts + ") AS l_partkey", "1 + pmod(xxhash64(id, 23), " + suppliers + ") AS l_suppkey",
        "CAST(1 + pmod(xxhash64(id, 24), 50) AS DECIMAL(12, 2)) AS l_quantity",
        "CAST(pmod(xxhash64(id, 25), 10000000) / 100 AS DECIMAL(12, 2)) AS l_extendedprice",
        "CAST(pmod(xxhash64(id, 26), 11) / 100 AS DECIMAL(12, 2)) AS l_discount",
        "CASE WHEN pmod(xxhash64(id, 27), 4) = 0 THEN 'R' ELSE 'N' END AS l_returnflag",
        "date_add(DATE'1992-01-02', CAST(pmod(xxhash64(id, 28), 2500) AS INT)) AS l_shipdate",
        "date_add(DATE'1992-01-30', CAST(pmod(xxhash64(id, 29), 2500) AS INT)) AS l_commitdate",
        "date_add(DATE'1992-01-03', CAST(pmod(xxhash64(id, 30), 2530) AS INT)) AS l_receiptdate",
        pick(modes, "pmod(xxhash64(id, 31), 7)") + " AS l_shipmode")
        .write().mode(SaveMode.Overwrite).parquet(dir + "/lineitem");
  }

  private static String pick(String[] values, String index) {
    StringBuilder sb = new StringBuilder("element_at(array(");
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : ", ").append('\'').append(values[i]).append('\'');
    }
    return sb.append("), CAST(").append(index).append(" AS INT) + 1)").toString();
  }
}
