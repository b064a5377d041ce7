# Passed to every unit's plan with -var-file (extra_arguments in the root configuration).
cluster_name = "ml"
