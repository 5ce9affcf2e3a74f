import TimeAgent
