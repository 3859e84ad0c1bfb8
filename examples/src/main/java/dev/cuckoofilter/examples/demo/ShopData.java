package dev.cuckoofilter.examples.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The quick-start demo's data: an online shop's {@code customers} and {@code orders}, generated once as
 * Parquet and reused by later runs of the same size, and a day's change to the customers.
 *
 * <p>Every value is derived from the row's id with {@code xxhash64}, not from {@code rand()}, so the data
 * is the same on every machine and for any number of partitions. Orders are skewed towards some
 * customers, as real order books are: an order's customer is {@code customers * u^1.5} for a uniform
 * {@code u}, so the customers with low ids order most.
 */
public final class ShopData {
  /** Rows of the default run: a few minutes on 2 cores including generation. */
  public static final long DEFAULT_ORDERS = 5_000_000L;
  public static final long DEFAULT_CUSTOMERS = 500_000L;

  /** Countries with their share of customers, in percent (they sum to 100). */
  private static final Map<String, Integer> COUNTRY_SHARES = new LinkedHashMap<>();
  /** The region of each country. */
  private static final Map<String, String> REGIONS = new LinkedHashMap<>();

  static {
    country("US", 22, "NA");
    country("CA", 5, "NA");
    country("MX", 4, "LATAM");
    country("BR", 6, "LATAM");
    country("GB", 9, "EMEA");
    country("DE", 8, "EMEA");
    country("FR", 7, "EMEA");
    country("ES", 4, "EMEA");
    country("IT", 4, "EMEA");
    country("NL", 3, "EMEA");
    country("PL", 3, "EMEA");
    country("SE", 2, "EMEA");
    country("IN", 10, "APAC");
    country("JP", 6, "APAC");
    country("AU", 4, "APAC");
    country("SG", 3, "APAC");
    int total = COUNTRY_SHARES.values().stream().mapToInt(Integer::intValue).sum();
    if (total != 100) {
      throw new IllegalStateException("country shares sum to " + total + "%, not 100%");
    }
  }

  private static void country(String code, int percent, String region) {
    COUNTRY_SHARES.put(code, percent);
    REGIONS.put(code, region);
  }

  private final SparkSession spark;
  private final Path dir;
  private final long orderRows;
  private final long customerRows;

  /**
   * @param dir where the Parquet tables are kept ({@code orders/}, {@code customers/} and a marker that
   *            records their sizes)
   */
  public ShopData(SparkSession spark, Path dir, long orderRows, long customerRows) {
    if (orderRows <= 0 || customerRows <= 0) {
      throw new IllegalArgumentException("orders and customers must be positive, got " + orderRows + " and "
          + customerRows);
    }
    this.spark = spark;
    this.dir = dir;
    this.orderRows = orderRows;
    this.customerRows = customerRows;
  }

  /**
   * Writes both tables unless a previous run wrote them with the same sizes.
   *
   * @return true if they were generated now, false if reused
   */
  public boolean ensureGenerated() throws IOException {
    Path marker = dir.resolve("dataset.properties");
    Properties wanted = new Properties();
    wanted.setProperty("orders", String.valueOf(orderRows));
    wanted.setProperty("customers", String.valueOf(customerRows));
    wanted.setProperty("generator", "1"); // bump when the generated columns change
    if (Files.exists(marker)) {
      Properties found = new Properties();
      try (InputStream in = Files.newInputStream(marker)) {
        found.load(in);
      }
      if (found.equals(wanted)) {
        return false;
      }
    }
    Files.createDirectories(dir);
    Files.deleteIfExists(marker); // a run interrupted below leaves no marker, so the next run regenerates
    generateCustomers().write().mode(SaveMode.Overwrite).parquet(customersPath());
    generateOrders().write().mode(SaveMode.Overwrite).parquet(ordersPath());
    try (OutputStream out = Files.newOutputStream(marker)) {
      wanted.store(out, "sizes of the generated tables; delete this file to regenerate them");
    }
    return true;
  }

  public Dataset<Row> customers() {
    return spark.read().parquet(customersPath());
  }

  public Dataset<Row> orders() {
    return spark.read().parquet(ordersPath());
  }

  /** The dimension the demo filters on: the active customers of one country. */
  public static Dataset<Row> activeCustomersOf(Dataset<Row> customers, String country) {
    return customers.where("active AND country = '" + country + "'");
  }

  /**
   * The customers table after a day of changes: about 4% of the active customers become inactive and
   * about 6% of the inactive ones become active again (chosen by a hash of the id, with a salt that no
   * generated column uses).
   */
  public static Dataset<Row> afterOneDay(Dataset<Row> customers) {
    return customers.withColumn("active", org.apache.spark.sql.functions.expr(
        "CASE WHEN active AND " + uniform("customer_id", 91) + " < 0.04 THEN false "
            + "WHEN NOT active AND " + uniform("customer_id", 92) + " < 0.06 THEN true "
            + "ELSE active END"));
  }

  private String customersPath() {
    return dir.resolve("customers").toString();
  }

  private String ordersPath() {
    return dir.resolve("orders").toString();
  }

  private Dataset<Row> generateCustomers() {
    int partitions = (int) Math.max(2, Math.min(16, customerRows / 100_000));
    return spark.range(1, customerRows + 1, 1, partitions).selectExpr(
        "id AS customer_id",
        "concat('Customer ', id) AS name",
        "concat('customer', id, '@example.com') AS email",
        weighted(COUNTRY_SHARES, uniform("id", 1)) + " AS country",
        "CASE WHEN " + uniform("id", 2) + " < 0.80 THEN 'consumer' WHEN " + uniform("id", 2)
            + " < 0.95 THEN 'small business' ELSE 'enterprise' END AS segment",
        "date_add(DATE'2019-01-01', CAST(" + uniform("id", 3) + " * 2190 AS INT)) AS signup_date",
        uniform("id", 4) + " < 0.62 AS active")
        .withColumn("region", org.apache.spark.sql.functions.expr(regionOf("country")));
  }

  private Dataset<Row> generateOrders() {
    int partitions = (int) Math.max(2, Math.min(32, orderRows / 250_000));
    return spark.range(1, orderRows + 1, 1, partitions).selectExpr(
        "id AS order_id",
        "1 + CAST(floor(" + customerRows + " * pow(" + uniform("id", 11) + ", 1.5)) AS BIGINT) AS customer_id",
        "timestamp_seconds(1704067200 + CAST(" + uniform("id", 12) + " * 63158400 AS BIGINT)) AS ordered_at",
        "CASE WHEN " + uniform("id", 13) + " < 0.85 THEN 'delivered' WHEN " + uniform("id", 13)
            + " < 0.92 THEN 'shipped' WHEN " + uniform("id", 13) + " < 0.97 THEN 'cancelled' ELSE 'returned' END"
            + " AS status",
        "CASE WHEN " + uniform("id", 14) + " < 0.55 THEN 'web' WHEN " + uniform("id", 14)
            + " < 0.90 THEN 'app' ELSE 'store' END AS channel",
        "1 + CAST(" + uniform("id", 15) + " * 6 AS INT) AS items",
        // Log-normal-like amounts from 5 to a few thousand, to the cent.
        "CAST(round(5 + exp(" + uniform("id", 16) + " * 6.5), 2) AS DECIMAL(10, 2)) AS amount");
  }

  /** A uniform double in [0, 1) from a hash of {@code column} with {@code salt}. */
  static String uniform(String column, int salt) {
    return "(pmod(xxhash64(" + column + ", " + salt + "), 1000000) / 1000000.0)";
  }

  /** A SQL expression picking a key of {@code shares} (percent) by the uniform value {@code u}. */
  private static String weighted(Map<String, Integer> shares, String u) {
    StringBuilder sql = new StringBuilder("CASE");
    int cumulative = 0;
    List<String> keys = new ArrayList<>(shares.keySet());
    for (int i = 0; i < keys.size() - 1; i++) {
      cumulative += shares.get(keys.get(i));
      sql.append(" WHEN ").append(u).append(" < ").append(cumulative / 100.0).append(" THEN '").append(keys.get(i))
          .append('\'');
    }
    return sql.append(" ELSE '").append(keys.get(keys.size() - 1)).append("' END").toString();
  }

  private static String regionOf(String countryColumn) {
    StringBuilder sql = new StringBuilder("CASE ").append(countryColumn);
    REGIONS.forEach((country, region) -> sql.append(" WHEN '").append(country).append("' THEN '").append(region)
        .append('\''));
    return sql.append(" END").toString();
  }
}
