// module SpoolWorkloads
