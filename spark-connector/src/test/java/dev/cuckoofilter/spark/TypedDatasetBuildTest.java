package dev.cuckoofilter.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * The build aggregate from the typed Dataset API ({@link CuckooFilters#typedFilterOf}) on a Dataset of a Java
 * bean: over the whole Dataset with {@code select} and per group with {@code groupByKey(...).agg}, it gives
 * the bytes of the untyped build ({@code filterOf} in {@code agg} / {@code groupBy().agg}, and
 * {@code cuckoo_filter} in SQL) and answers like a filter built from the same keys in plain Java.
 */
class TypedDatasetBuildTest {
  static SparkSession spark;
  static final String[] REGIONS = {"north", "south", "east", "west"};
  static final long EXPECTED = 5000;
  static final double FPP = 0.001;
  static List<Customer> customers;
  static Dataset<Customer> typed;

  /** A Java bean: the typed Dataset's element. */
  public static class Customer implements Serializable {
    private long id;
    private String region;
    private String email;

    public Customer() {}

    Customer(long id, String region, String email) {
      this.id = id;
      this.region = region;
      this.email = email;
    }

    public long getId() {
      return id;
    }

    public void setId(long id) {
      this.id = id;
    }

    public String getRegion() {
      return region;
    }

    public void setRegion(String region) {
      this.region = region;
    }

    public String getEmail() {
      return email;
    }

    public void setEmail(String email) {
      this.email = email;
    }
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    SplittableRandom r = new SplittableRandom(7);
    customers = new ArrayList<>();
    for (int i = 0; i < 6000; i++) {
      long id = r.nextLong(5000) * 7919; // duplicate ids, each in one region
      String region = REGIONS[(int) Math.floorMod(id, REGIONS.length)];
      // Some rows without an e-mail: null keys are left out of the filter.
      customers.add(new Customer(id, region, i % 10 == 0 ? null : "c" + id + "@example.com"));
    }
    typed = spark.createDataset(customers, Encoders.bean(Customer.class)).repartition(7);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void aTypedBuildGivesTheUntypedBytesAndAnswersLikePlainJava() throws Exception {
    // Sized for given items and sized from the exact distinct count; a long key and a string key.
    byte[] byId = typed.select(CuckooFilters.<Customer>typedFilterOf(EXPECTED, FPP, col("id"))).first();
    byte[] byEmail = typed.select(CuckooFilters.<Customer>typedFilterOf(col("email"))).first();

    // The native aggregate reads the columns: no bean is deserialized per row.
    String plan = typed.select(CuckooFilters.<Customer>typedFilterOf(col("id"))).queryExecution().executedPlan()
        .toString();
    assertTrue(plan.contains("cuckoo_filter(") && plan.contains("ObjectHashAggregate")
        && !plan.contains("DeserializeToObject"), plan);

    Dataset<Row> untyped = typed.toDF();
    assertArrayEquals((byte[]) untyped.agg(CuckooFilters.filterOf(EXPECTED, FPP, col("id"))).first().get(0), byId);
    assertArrayEquals((byte[]) untyped.selectExpr("cuckoo_filter(id, " + EXPECTED + ", " + FPP + ")").first().get(0),
        byId);
    assertArrayEquals((byte[]) untyped.agg(CuckooFilters.filterOf(col("email"))).first().get(0), byEmail);
    // The same keys in another partitioning give the same bytes.
    assertArrayEquals(byId, typed.repartition(2).select(CuckooFilters.<Customer>typedFilterOf(EXPECTED, FPP,
        col("id"))).first());

    Set<Long> ids = new HashSet<>();
    Set<String> emails = new HashSet<>();
    for (Customer c : customers) {
      ids.add(c.getId());
      if (c.getEmail() != null) {
        emails.add(c.getEmail());
      }
    }
    assertSameAnswers(plainSet(CuckooFilter.create(EXPECTED, FPP), ids), CuckooFilter.fromByteArray(byId), ids);
    // Sized from the exact distinct count: for that many keys at the default rate, 0.01.
    CuckooFilter plainEmails = CuckooFilter.create(emails.size(), 0.01);
    for (String e : emails) {
      if (!plainEmails.mightContain(e)) {
        plainEmails.add(e);
      }
    }
    assertArrayEquals(CanonicalBuilder.canonical(plainEmails).toByteArray(), byEmail);
    CuckooFilter emailFilter = CuckooFilter.fromByteArray(byEmail);
    for (String e : emails) {
      assertTrue(emailFilter.mightContain(e), e);
    }
    for (int i = 0; i < 50_000; i++) {
      String absent = "absent" + i + "@example.com";
      assertEquals(plainEmails.mightContain(absent), emailFilter.mightContain(absent), absent);
    }

    // The builder takes a typed Dataset too, and builds the same filter.
    SparkCuckooFilter built = CuckooFilters.builder(typed).keys("id").expectedItems(EXPECTED).fpp(FPP).build();
    assertArrayEquals(byId, built.filter().toByteArray());
  }

  @Test
  void perGroupTypedBuildsGiveTheUntypedBytesAndAnswerLikePlainJava() throws Exception {
    Dataset<Tuple2<String, byte[]>> perRegion = typed
        .groupByKey((MapFunction<Customer, String>) Customer::getRegion, Encoders.STRING())
        .agg(CuckooFilters.<Customer>typedFilterOf(EXPECTED, FPP, col("id")));
    Map<String, byte[]> typedFilters = new TreeMap<>();
    for (Tuple2<String, byte[]> t : perRegion.collectAsList()) {
      typedFilters.put(t._1(), t._2());
    }
    Map<String, byte[]> untypedFilters = new TreeMap<>();
    for (Row row : typed.toDF().groupBy("region").agg(CuckooFilters.filterOf(EXPECTED, FPP, col("id"))).collectAsList()) {
      untypedFilters.put(row.getString(0), (byte[]) row.get(1));
    }
    assertEquals(Set.of(REGIONS), typedFilters.keySet());
    assertEquals(typedFilters.keySet(), untypedFilters.keySet());

    Map<String, Set<Long>> idsByRegion = new HashMap<>();
    for (Customer c : customers) {
      idsByRegion.computeIfAbsent(c.getRegion(), k -> new HashSet<>()).add(c.getId());
    }
    for (String region : REGIONS) {
      byte[] bytes = typedFilters.get(region);
      assertArrayEquals(untypedFilters.get(region), bytes, region);
      assertSameAnswers(plainSet(CuckooFilter.create(EXPECTED, FPP), idsByRegion.get(region)),
          CuckooFilter.fromByteArray(bytes), idsByRegion.get(region));
    }

    // Sized from each group's exact distinct count, as cuckoo_filter(key) in SQL.
    Dataset<Tuple2<String, byte[]>> exact = typed
        .groupByKey((MapFunction<Customer, String>) Customer::getRegion, Encoders.STRING())
        .agg(CuckooFilters.<Customer>typedFilterOf(col("id")));
    typed.toDF().createOrReplaceTempView("typed_customers");
    Map<String, byte[]> sql = new TreeMap<>();
    for (Row row : spark.sql("SELECT region, cuckoo_filter(id) FROM typed_customers GROUP BY region").collectAsList()) {
      sql.put(row.getString(0), (byte[]) row.get(1));
    }
    assertEquals(sql.keySet(), Set.of(REGIONS));
    for (Tuple2<String, byte[]> t : exact.collectAsList()) {
      assertArrayEquals(sql.get(t._1()), t._2(), t._1());
      Set<Long> ids = idsByRegion.get(t._1());
      assertSameAnswers(plainSet(CuckooFilter.create(ids.size(), 0.01), ids), CuckooFilter.fromByteArray(t._2()), ids);
    }
  }

  /**
   * {@code filter} with {@code keys} added in plain Java as a set, as the Spark build stores them: a key whose
   * entry (fingerprint and bucket pair) another key already stored is not added again.
   */
  static CuckooFilter plainSet(CuckooFilter filter, Set<Long> keys) {
    for (long k : keys) {
      if (!filter.mightContain(k)) {
        filter.add(k);
      }
    }
    return filter;
  }

  /**
   * The Spark-built filter holds the members and is the plain-Java filter of the same keys laid out
   * canonically: the same bytes, so the same answer for every key (checked on 200,000 others too).
   */
  static void assertSameAnswers(CuckooFilter plainJava, CuckooFilter spark, Set<Long> members) {
    for (long k : members) {
      assertTrue(spark.mightContain(k), "member " + k);
    }
    assertArrayEquals(CanonicalBuilder.canonical(plainJava).toByteArray(), spark.toByteArray());
    long falsePositives = 0;
    for (long k = -100_000; k < 100_000; k++) {
      assertEquals(plainJava.mightContain(k), spark.mightContain(k), "key " + k);
      falsePositives += spark.mightContain(k) && !members.contains(k) ? 1 : 0;
    }
    assertTrue(falsePositives < 200_000 * spark.expectedFpp() * 3 + 10, falsePositives + " false positives");
  }
}
