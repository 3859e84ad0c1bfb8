package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.cuckoofilter.spark.optimizer.RuntimeFilterConf;
import dev.cuckoofilter.spark.optimizer.StoredFilterIndex;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.update.ChangeSet;
import dev.cuckoofilter.spark.update.FilterUpdater;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** With Kryo and registrationRequired, filters broadcast and collect through the registrator. */
class KryoSerializationTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrationRequired", "true")
        .config("spark.kryo.registrator", CuckooKryoRegistrator.class.getName())
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .getOrCreate();
  }

  @TempDir static Path dir;

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void broadcastAndCollectWork() {
    CuckooFilter filter = CuckooFilter.create(10_000, 0.001);
    for (long i = 0; i < 10_000; i++) {
      filter.add(i * 3);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<CuckooFilter> b = jsc.broadcast(filter);
    long hits = jsc.parallelize(List.of(0L, 3L, 6L, 7L), 2).filter(x -> b.value().mightContain(x)).count();
    assertEquals(3, hits);
    List<CuckooFilter> collected = jsc.parallelize(List.of(1, 2), 2).map(x -> {
      CuckooFilter f = CuckooFilter.create(100, 0.01);
      f.add((long) x);
      return f;
    }).collect();
    assertEquals(2, collected.size());
    assertTrue(collected.get(0).mightContain(1L) && collected.get(1).mightContain(2L));
    // An RDD whose ClassTag is CuckooFilter (any Scala RDD[CuckooFilter]) collects a CuckooFilter[].
    CuckooFilter one = CuckooFilter.create(100, 0.01);
    one.add(1L);
    CuckooFilter two = CuckooFilter.create(100, 0.01);
    two.add(2L);
    Object typed = spark.sparkContext().parallelize(scala.collection.JavaConverters.asScalaBuffer(List.of(one, two)), 2,
        scala.reflect.ClassTag$.MODULE$.apply(CuckooFilter.class)).collect();
    CuckooFilter[] array = (CuckooFilter[]) typed;
    assertEquals(2, array.length);
    assertTrue(array[0].mightContain(1L) && array[1].mightContain(2L));
    // The DataFrame API's broadcast goes through Kryo too.
    SparkCuckooFilter sf = CuckooFilters.build(spark.range(0, 1000).toDF("id"), "id");
    long kept = sf.prune(spark.range(0, 5000).toDF("id"), "id").count();
    assertTrue(kept >= 1000 && kept < 1100, "kept " + kept);
  }

  /** Every path that ships filters or their parts between JVMs: the SQL aggregate, the rule, stored filters, updates. */
  @Test
  void theSqlBuildTheRuleStoredFiltersAndUpdatesWork() throws Exception {
    spark.sql("SELECT id % 20000 AS k, id AS v FROM range(0, 60000)").repartition(4)
        .write().parquet(dir.resolve("fact").toString());
    spark.sql("SELECT id * 5 AS k, CAST(id % 10 AS INT) AS segment FROM range(0, 3000)").repartition(3)
        .write().parquet(dir.resolve("dim").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("kfact");
    spark.read().parquet(dir.resolve("dim").toString()).createOrReplaceTempView("kdim");
    spark.sql("CREATE OR REPLACE TEMP VIEW kdim_low AS SELECT * FROM kdim WHERE segment < 2");
    String query = "SELECT f.k, f.v FROM kfact f JOIN kdim_low d ON f.k = d.k";
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    long expected = spark.sql(query).count();
    spark.conf().set(RuntimeFilterConf.ENABLED, "true");
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      Dataset<Row> pruned = spark.sql(query);
      assertTrue(pruned.queryExecution().optimizedPlan().toString().contains("cuckoo_might_contain"));
      assertEquals(expected, pruned.count());
      String location = dir.resolve("filters/kdim_low").toUri().toString();
      StoredFilterIndex.storeIndex(spark, "kdim_low", List.of("k"), location, 0.001);
      Dataset<Row> stored = spark.sql(query);
      assertTrue(stored.queryExecution().optimizedPlan().toString().contains("filters/kdim_low"));
      assertEquals(expected, stored.count());
      // An update in Spark, then the updated filter probed on the executors.
      Dataset<Row> before = spark.table("kdim_low").select("k");
      Dataset<Row> after = spark.sql("SELECT k FROM kdim WHERE segment < 3 AND k % 2 = 0");
      FilterStore store = FilterStore.open(location, spark);
      FilterUpdater.update(store, ChangeSet.between(before, after), "kryo test");
      SparkCuckooFilter updated = store.sparkFilter(spark, store.latest().get().version());
      long kept = updated.prune(spark.table("kfact"), "k").join(after, "k").count();
      assertEquals(spark.table("kfact").join(after, "k").count(), kept);
    } finally {
      spark.conf().unset(RuntimeFilterConf.FORCE);
      spark.conf().unset(RuntimeFilterConf.ENABLED);
    }
  }
}
