// TimeAgent
