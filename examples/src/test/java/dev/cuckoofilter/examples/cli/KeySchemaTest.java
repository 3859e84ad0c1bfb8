package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The tool's reading of key columns without Spark agrees with Spark's types and the connector's. */
class KeySchemaTest {
  private static final List<DataType> KEY_TYPES = List.of(DataTypes.ByteType, DataTypes.ShortType,
      DataTypes.IntegerType, DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DataTypes.BooleanType,
      DataTypes.DateType, DataTypes.TimestampType, DataTypes.TimestampNTZType, DataTypes.StringType,
      DataTypes.BinaryType, DataTypes.createDecimalType(10, 2), DataTypes.createDecimalType(38, 0),
      DataTypes.createDecimalType(25, 3));

  @Test
  void categoriesAndNamesAreThoseOfSparksTypes() {
    for (DataType type : KEY_TYPES) {
      StructType schema = new StructType().add("k", type);
      KeySchema.Column column = KeySchema.columns(schema.json()).get(0);
      assertEquals(KeyTypes.category(type), column.category(), type.toString());
      assertEquals(type.simpleString(), column.sqlType(), type.toString());
    }
  }

  @Test
  void writesTheSchemaSparkReadsBack() {
    List<KeySchema.Column> columns = List.of(new KeySchema.Column("region", "string"),
        new KeySchema.Column("amount", "decimal(12,3)"), new KeySchema.Column("at", "timestamp_ntz"));
    StructType expected = new StructType(new StructField[] {
        DataTypes.createStructField("region", DataTypes.StringType, true),
        DataTypes.createStructField("amount", DataTypes.createDecimalType(12, 3), true),
        DataTypes.createStructField("at", DataTypes.TimestampNTZType, true)});
    assertEquals(expected, DataType.fromJson(KeySchema.json(columns)));
  }

  @Test
  void structKeyColumnsCountAsTheirFields() {
    StructType schema = new StructType().add("id", DataTypes.LongType)
        .add("place", new StructType().add("country", DataTypes.StringType).add("zip", DataTypes.IntegerType));
    assertEquals(List.of(new KeySchema.Column("id", "long"), new KeySchema.Column("place.country", "string"),
        new KeySchema.Column("place.zip", "integer")), KeySchema.columns(schema.json()));
  }

  @Test
  void refusesTypesThatCannotBeKeys() {
    String array = new StructType().add("tags", DataTypes.createArrayType(DataTypes.StringType)).json();
    assertEquals("key column tags has type {\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true}, "
        + "which cannot be a filter key",
        assertThrows(InputException.class, () -> KeySchema.columns(array)).getMessage());
    String interval = "{\"type\":\"struct\",\"fields\":[{\"name\":\"i\",\"type\":\"interval\",\"nullable\":true}]}";
    assertEquals("key column i has type interval, which cannot be a filter key",
        assertThrows(InputException.class, () -> KeySchema.columns(interval)).getMessage());
  }
}
