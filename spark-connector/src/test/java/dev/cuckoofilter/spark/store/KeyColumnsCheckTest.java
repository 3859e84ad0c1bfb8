package dev.cuckoofilter.spark.store;

import static dev.cuckoofilter.spark.store.TestFilters.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A location keeps its key columns: a publish with other column names, or types that do not hash alike,
 * is refused naming the location, the versions and the columns, unless it re-keys the location explicitly.
 */
class KeyColumnsCheckTest {
  private static final AtomicInteger LOCATIONS = new AtomicInteger();

  @TempDir
  static File dir;

  private static FilterStore newStore() throws IOException {
    return FilterStore.open(new File(dir, "keys-" + LOCATIONS.incrementAndGet()).toURI().toString(),
        new Configuration());
  }

  private static List<StructField> keys(StructField... fields) {
    return List.of(fields);
  }

  private static StructField field(String name, DataType type) {
    return DataTypes.createStructField(name, type, true);
  }

  /** A location whose version 1 is keyed on {@code id bigint}. */
  private static FilterStore keyedOnLongId() throws IOException {
    FilterStore store = newStore();
    CuckooFilter f = range(0, 100);
    store.publish(f, FilterMetadata.of(f, TestFilters.LONG_KEY, "v1", FilterMetadata.NO_PARENT));
    return store;
  }

  private static KeyColumnsChangedException refused(FilterStore store, List<StructField> keys) throws IOException {
    CuckooFilter f = range(1000, 1100);
    KeyColumnsChangedException e = assertThrows(KeyColumnsChangedException.class,
        () -> store.publish(f, FilterMetadata.of(f, keys, "re-keyed", 1)));
    assertEquals(store.location(), e.location());
    assertEquals(1, e.latestVersion());
    assertTrue(e.getMessage().startsWith("location " + store.location() + ": version 2 would have the key columns ("),
        e.getMessage());
    assertTrue(e.getMessage().contains("but version 1, the latest, has (id bigint)"), e.getMessage());
    assertEquals(List.of(1L), store.versionNumbers(), "nothing was published");
    assertEquals(1, FilterStoreContract.listNames(store, store.layout().data).size(), "no data file was written");
    return e;
  }

  @Test
  void otherColumnNamesOrTypesThatDoNotHashAlikeAreRefused() throws IOException {
    FilterStore store = keyedOnLongId();
    assertTrue(refused(store, keys(field("customer_id", DataTypes.LongType))).getMessage()
        .contains("key column 1 is customer_id bigint instead of id bigint"));
    assertTrue(refused(store, keys(field("id", DataTypes.StringType))).getMessage()
        .contains("key column id is string instead of bigint, which does not hash alike"));
    assertTrue(refused(store, keys(field("id", DataTypes.DoubleType))).getMessage()
        .contains("key column id is double instead of bigint"));
    KeyColumnsChangedException added = refused(store, keys(field("id", DataTypes.LongType),
        field("region", DataTypes.IntegerType)));
    assertTrue(added.getMessage().contains("would have the key columns (id bigint, region int)")
        && added.getMessage().contains("key column 2 region int is new"), added.getMessage());
    assertTrue(added.getMessage().contains("publishWithNewKeys"), added.getMessage());
    KeyColumnsChangedException nested = refused(store, keys(field("id", new StructType().add("id", "long"))));
    assertTrue(nested.getMessage().contains("key column id is struct<id:bigint> instead of bigint"),
        nested.getMessage());

    // The Spark-free path makes the same check.
    CuckooFilter f = range(2000, 2100);
    String json = new StructType().add("customer_id", "long").json();
    KeyColumnsChangedException plain = assertThrows(KeyColumnsChangedException.class,
        () -> store.publish(f, VersionMetadata.of(f, json, "a tool", 1)));
    assertTrue(plain.getMessage().contains("customer_id bigint instead of id bigint"), plain.getMessage());
    KeyColumnsChangedException early = assertThrows(KeyColumnsChangedException.class,
        () -> store.requireKeyColumnsOfLatest(json));
    assertEquals(plain.getMessage(), early.getMessage());
    assertEquals(List.of(1L), store.versionNumbers());
  }

  @Test
  void typesThatHashAlikeNullabilityAndColumnMetadataAreTheSameKey() throws IOException {
    FilterStore store = newStore();
    List<StructField> v1 = keys(field("id", DataTypes.IntegerType), field("amount", DataTypes.createDecimalType(10, 2)),
        field("at", DataTypes.TimestampType));
    CuckooFilter f = range(0, 100);
    store.publish(f, FilterMetadata.of(f, v1, "v1", FilterMetadata.NO_PARENT));
    List<StructField> v2 = keys(
        DataTypes.createStructField("id", DataTypes.LongType, false,
            new MetadataBuilder().putString("comment", "widened").build()),
        field("amount", DataTypes.createDecimalType(18, 2)), field("at", DataTypes.TimestampType));
    CuckooFilter g = range(100, 200);
    store.requireKeyColumnsOfLatest(new StructType(v2.toArray(new StructField[0])).json());
    assertEquals(2, store.publish(g, FilterMetadata.of(g, v2, "v2", 1)).version());

    // Names are compared as Spark resolves them by default, ignoring case: ID is the column id.
    CuckooFilter i = range(150, 250);
    List<StructField> upper = keys(field("ID", DataTypes.LongType), field("Amount", DataTypes.createDecimalType(18, 2)),
        field("AT", DataTypes.TimestampType));
    store.requireKeyColumnsOfLatest(new StructType(upper.toArray(new StructField[0])).json());
    assertEquals(3, store.publish(i, FilterMetadata.of(i, upper, "v3", 2)).version());
    store.publish(g, FilterMetadata.of(g, v2, "v4", 3));

    CuckooFilter h = range(200, 300);
    KeyColumnsChangedException ntz = assertThrows(KeyColumnsChangedException.class, () -> store.publish(h,
        FilterMetadata.of(h, keys(field("id", DataTypes.LongType), field("amount", DataTypes.createDecimalType(18, 2)),
            field("at", DataTypes.TimestampNTZType)), "v5", 4)));
    assertTrue(ntz.getMessage().contains("key column at is timestamp_ntz instead of timestamp"), ntz.getMessage());
    KeyColumnsChangedException scale = assertThrows(KeyColumnsChangedException.class, () -> store.publish(h,
        FilterMetadata.of(h, keys(field("id", DataTypes.LongType), field("amount", DataTypes.createDecimalType(18, 3)),
            field("at", DataTypes.TimestampType)), "v5", 4)));
    assertTrue(scale.getMessage().contains("key column amount is decimal(18,3) instead of decimal(18,2)"),
        scale.getMessage());
  }

  /**
   * A struct key column is a composite key hashed field by field in order, and updates read its fields by name. A
   * version of the same struct with its fields in another order (a rebuild from JSON, whose schema inference sorts
   * struct fields by name: struct<zip, city> reads back as struct<city, zip>) hashes other values for the same
   * addresses, so probes with the table's struct<zip, city> miss them; it was accepted as the same key (the types'
   * categories name no fields). Struct fields are compared like key columns: by name (case aside), in order.
   */
  @Test
  void aStructKeyWithItsFieldsInAnotherOrderIsAnotherKey() throws IOException {
    FilterStore store = newStore();
    StructType zipCity = new StructType().add("zip", "string").add("city", "string");
    CuckooFilter f = range(0, 100);
    store.publish(f, FilterMetadata.of(f, keys(field("addr", zipCity)), "v1", FilterMetadata.NO_PARENT));
    // The same fields, named in another case: the same key.
    StructType upper = new StructType().add("ZIP", "string").add("City", "string");
    store.requireKeyColumnsOfLatest(new StructType().add("addr", upper).json());

    StructType cityZip = new StructType().add("city", "string").add("zip", "string");
    CuckooFilter g = range(100, 200);
    KeyColumnsChangedException e = assertThrows(KeyColumnsChangedException.class,
        () -> store.publish(g, FilterMetadata.of(g, keys(field("addr", cityZip)), "from JSON", 1)));
    assertTrue(e.getMessage().contains("key column addr is struct<city:string,zip:string> instead of "
        + "struct<zip:string,city:string>"), e.getMessage());
    KeyColumnsChangedException nested = assertThrows(KeyColumnsChangedException.class,
        () -> store.requireKeyColumnsOfLatest(new StructType().add("addr", new StructType()
            .add("zip", "string").add("town", "string")).json()));
    assertTrue(nested.getMessage().contains("key column addr is struct<zip:string,town:string>"), nested.getMessage());
    assertEquals(List.of(1L), store.versionNumbers(), "nothing was published");
  }

  @Test
  void publishWithNewKeysReKeysTheLocationDeliberately() throws IOException {
    FilterStore store = keyedOnLongId();
    List<StructField> newKeys = keys(field("customer_id", DataTypes.StringType));
    CuckooFilter f = range(1000, 1100);
    assertEquals(2, store.publishWithNewKeys(f, FilterMetadata.of(f, newKeys, "re-keyed", 1)).version());
    assertEquals(newKeys, store.read(2).metadata().keyColumns());
    // From then on the new key columns are the location's.
    CuckooFilter g = range(2000, 2100);
    KeyColumnsChangedException back = assertThrows(KeyColumnsChangedException.class,
        () -> store.publish(g, FilterMetadata.of(g, TestFilters.LONG_KEY, "old keys", 2)));
    assertTrue(back.getMessage().contains("version 2, the latest, has (customer_id string)"), back.getMessage());
    assertEquals(3, store.publish(g, FilterMetadata.of(g, newKeys, "same keys", 2)).version());
    // An empty location takes any key columns.
    newStore().requireKeyColumnsOfLatest(new StructType().add("anything", "binary").json());
  }

  /** The Spark-free categories are those of KeyTypes, for every key type. */
  @Test
  void categoriesWithoutSparkAgreeWithKeyTypes() {
    List<DataType> types = List.of(DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType, DataTypes.LongType,
        DataTypes.FloatType, DataTypes.DoubleType, DataTypes.BooleanType, DataTypes.StringType, DataTypes.BinaryType,
        DataTypes.DateType, DataTypes.TimestampType, DataTypes.TimestampNTZType, DataTypes.createDecimalType(10, 2),
        DataTypes.createDecimalType(38, 0), new StructType().add("a", "int").add("b", new StructType().add("c", "date")));
    for (DataType t : types) {
      StructType schema = new StructType().add("k", t);
      KeyColumnsJson.Column c = KeyColumnsJson.columns(schema.json()).get(0);
      assertEquals(KeyTypes.category(t), c.category(), t.simpleString());
      assertEquals("k " + t.simpleString(), c.toString());
    }
  }
}
