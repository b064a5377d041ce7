from_var_file = "g6e.xlarge"
from_var_flag = "g6e.xlarge"
