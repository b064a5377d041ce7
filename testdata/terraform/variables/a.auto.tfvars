from_auto     = "g5.2xlarge"
from_var_file = "g5.2xlarge"
from_var_flag = "g5.2xlarge"
