// module SpoolIO
