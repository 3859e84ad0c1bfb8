package dev.cuckoofilter.spark.hash;

import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Struct keys taken by field name. A struct key hashes its fields in order, so the same struct with its fields in
 * another order (the same data read back from JSON, whose schema inference sorts struct fields by name) is another
 * key: an update's change ({@code FilterUpdater}) and a prune's keys ({@code SparkCuckooFilter.prune}) are put in
 * the filter's order first, as Spark reads nested Parquet columns, by name.
 */
public final class StructKeys {
  private StructKeys() {}

  /**
   * {@code data} with each struct key column whose fields are the stored key's in another order (at any depth)
   * rebuilt with its fields in the stored order, taken by name ({@link #byFieldName}). Columns {@code data} lacks,
   * and structs whose fields do not all match a stored field by name, are left as they are for the caller's type
   * check.
   *
   * @param keys the stored key columns, by (top-level) column name
   */
  public static Dataset<Row> inStoredOrder(Dataset<Row> data, List<StructField> keys) {
    for (StructField key : keys) {
      if (!(key.dataType() instanceof StructType)) {
        continue;
      }
      Column column = functions.col("`" + key.name().replace("`", "``") + "`");
      StructField given;
      try {
        given = data.select(column).schema().fields()[0];
      } catch (Exception e) { // Spark's AnalysisException, which Java sees as checked
        if (e instanceof AnalysisException) {
          continue;
        }
        throw e;
      }
      Column byName = byFieldName(column, given.dataType(), key.dataType());
      if (byName != null) {
        data = data.withColumn(given.name(), byName);
      }
    }
    return data;
  }

  /**
   * {@code value}, of type {@code given}, with the fields of the struct type {@code stored} in its order, taken by
   * name; null if it has them in that order already, or is not a struct whose fields all match one by name.
   */
  public static Column byFieldName(Column value, DataType given, DataType stored) {
    if (!(given instanceof StructType) || !(stored instanceof StructType)) {
      return null;
    }
    StructField[] g = ((StructType) given).fields();
    StructField[] s = ((StructType) stored).fields();
    if (g.length != s.length) {
      return null;
    }
    Column[] fields = new Column[s.length];
    boolean changed = false;
    for (int i = 0; i < s.length; i++) {
      int j = fieldIndex(g, s[i].name());
      if (j < 0) {
        return null;
      }
      Column field = value.getField(g[j].name());
      Column nested = byFieldName(field, g[j].dataType(), s[i].dataType());
      changed |= j != i || nested != null;
      fields[i] = (nested != null ? nested : field).as(s[i].name());
    }
    if (!changed) {
      return null;
    }
    // A null struct stays null (a null key), not a struct of null fields.
    return functions.when(value.isNull(), functions.lit(null)).otherwise(functions.struct(fields));
  }

  /** The index of the field named {@code name}: exactly, else ignoring case if only one does; -1 if none. */
  private static int fieldIndex(StructField[] fields, String name) {
    int found = -1;
    for (int i = 0; i < fields.length; i++) {
      if (fields[i].name().equals(name)) {
        return i;
      }
      if (fields[i].name().equalsIgnoreCase(name)) {
        if (found >= 0) {
          return -1;
        }
        found = i;
      }
    }
    return found;
  }

}
