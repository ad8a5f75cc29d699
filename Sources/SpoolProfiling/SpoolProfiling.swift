// module SpoolProfiling
