package dev.cuckoofilter.spark.store;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The store on HDFS (MiniDFSCluster): commits by rename(NONE) at the NameNode. */
class HdfsFilterStoreTest extends FilterStoreContract {
  @TempDir
  static File dir;
  static MiniHdfs hdfs;

  @BeforeAll
  static void startHdfs() throws IOException {
    hdfs = MiniHdfs.start(new File(dir, "hdfs"));
  }

  @AfterAll
  static void stopHdfs() {
    if (hdfs != null) {
      hdfs.close();
    }
  }

  @Override
  String baseUri() {
    try {
      return hdfs.uri() + "/lake";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  Configuration conf() {
    return hdfs.clientConf();
  }

  @Override
  File workDir() {
    return dir;
  }
}
