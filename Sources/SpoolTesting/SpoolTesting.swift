// module SpoolTesting
